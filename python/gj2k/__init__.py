"""gj2k: JPEG 2000 reading and writing through libgj2k (shipped inside the
package), a thin ctypes binding of its public API (include/gj2k.h).

    import gj2k
    pixels = gj2k.read("photo.jp2")                   # numpy array, HxW or HxWxC
    data = gj2k.write(None, pixels, ratios=[20])      # lossy 9/7, as bytes
    gj2k.write("copy.j2k", pixels)                    # lossless 5/3, to a file
    gj2k.info("photo.jp2")["codestream"]["siz"]       # what `gj2k info --json` says
"""
from ._coder import Coder
from ._coding import read, write
from ._errors import (CancelledError, CodecWarning, DeviceError, Error, FileError,
                      InvalidArgumentError,
                      LimitError, MalformedError, NotImplementedYetError, OutOfMemoryError,
                      TruncatedError, UnsupportedError)
from ._info import info
from ._library import lib as _lib

__version__ = _lib.gj2k_version_string().decode()

__all__ = ["read", "write", "info", "Coder", "Error", "InvalidArgumentError",
           "OutOfMemoryError", "FileError", "UnsupportedError", "MalformedError",
           "TruncatedError", "LimitError", "NotImplementedYetError", "DeviceError",
           "CancelledError", "CodecWarning"]
