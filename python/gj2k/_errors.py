"""gj2k.Error and a subclass for each gj2k_status, raised with the
library's message."""


class Error(Exception):
    """A call into libgj2k failed; `status` is its gj2k_status number."""
    status = -1


class InvalidArgumentError(Error, ValueError):
    status = 1


class OutOfMemoryError(Error, MemoryError):
    status = 2


class FileError(Error, OSError):
    status = 3


class UnsupportedError(Error):
    status = 4


class MalformedError(Error):
    status = 5


class TruncatedError(MalformedError):
    status = 6


class LimitError(Error):
    status = 7


class NotImplementedYetError(Error):
    status = 8


class DeviceError(Error):
    status = 9


class CancelledError(Error):
    status = 10


BY_STATUS = {cls.status: cls for cls in (
    InvalidArgumentError, OutOfMemoryError, FileError, UnsupportedError, MalformedError,
    TruncatedError, LimitError, NotImplementedYetError, DeviceError, CancelledError)}


def check(status, error):
    """Raises the Error subclass for a failing status, with error's message."""
    if status == 0:
        return
    message = error.message.decode("utf-8", "replace") or "gj2k error %d" % status
    raise BY_STATUS.get(status, Error)(message)
