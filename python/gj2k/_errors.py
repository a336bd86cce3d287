"""gj2k.Error and a subclass for each gj2k_status, raised with the
library's message."""


class Error(Exception):
    """A call into libgj2k failed; `status` is its gj2k_status number,
    `remarks` the library's warnings before it failed (a list of strings)."""
    status = -1
    remarks = ()


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


class CodecWarning(UserWarning):
    """A remark of the library's that did not stop the call: damaged
    code-blocks, a truncated codestream decoded with allow_partial=True, an
    option a profile overrides. Raised through the warnings module (turn it
    into an error with warnings.simplefilter("error", gj2k.CodecWarning))."""


def check(status, error, remarks=()):
    """Raises the Error subclass for a failing status, with error's message;
    the library's remarks before it (warnings) go with it as .remarks."""
    if status == 0:
        return
    message = error.message.decode("utf-8", "replace") or "gj2k error %d" % status
    raised = BY_STATUS.get(status, Error)(message)
    raised.remarks = list(remarks)
    raise raised
