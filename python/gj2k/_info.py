"""gj2k.info: a file described as `gj2k info --json` describes it, by the
library's gj2k_describe_file (the same code the program runs), parsed into
a dict."""
import ctypes
import json
import os

from . import _library as L
from ._coding import _Remarks


def info(path):
    """The fields of `gj2k info --json PATH` as a dict: for a JPEG 2000 file
    its JP2 boxes, codestream markers, coding parameters and tiles; for any
    other image its size, components, colour and metadata. A file that does
    not read raises its gj2k.Error; the library's remarks on a damaged
    JPEG 2000 file come as gj2k.CodecWarning."""
    options = L.gj2k_describe_options()
    options.struct_size = ctypes.sizeof(options)
    options.style = L.DESCRIBE_JSON
    _Remarks().install(options)
    text = ctypes.POINTER(ctypes.c_char)()
    size = ctypes.c_size_t()
    error = L.gj2k_error()
    status = L.lib.gj2k_describe_file(os.fsencode(path), ctypes.byref(options),
                                      ctypes.byref(text), ctypes.byref(size),
                                      ctypes.byref(error))
    return json.loads(options._remarks.take(status, error, text, size))
