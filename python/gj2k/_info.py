"""gj2k.info: what `gj2k info --json` says of a file. The description of a
JPEG 2000 file's boxes and markers lives in the gj2k program, not the
library, so this runs the program shipped in the package, after checking
the file through the library (so a bad file raises its typed Error)."""
import ctypes
import json
import os
import subprocess

from . import _library as L
from ._errors import Error, FileError, UnsupportedError, check


def _check_readable(path):
    encoded = os.fsencode(path)
    if not os.path.isfile(path):
        raise FileError("%s: no such file" % os.fsdecode(path))
    error = L.gj2k_error()
    if L.lib.gj2k_format_of_file(encoded) in (L.FORMAT_J2K, L.FORMAT_JP2):
        header = ctypes.POINTER(L.gj2k_header)()
        check(L.lib.gj2k_header_read_file(encoded, ctypes.byref(header), ctypes.byref(error)),
              error)
        L.lib.gj2k_header_free(header)
        return
    image = L.image_p()
    check(L.lib.gj2k_image_read_file(encoded, None, ctypes.byref(image), ctypes.byref(error)),
          error)
    L.lib.gj2k_image_destroy(image)


def info(path, program=None):
    """The fields of `gj2k info --json PATH` as a dict: for a JPEG 2000 file
    its JP2 boxes, codestream markers, coding parameters and tiles; for any
    other image its size, components, colour and metadata."""
    _check_readable(path)
    program = program or L.PROGRAM_PATH
    if not os.access(program, os.X_OK):
        raise UnsupportedError("the gj2k program is missing from the package (%s)" % program)
    run = subprocess.run([program, "info", "--json", os.fsdecode(path)], capture_output=True)
    if run.returncode != 0:
        message = run.stderr.decode("utf-8", "replace").strip()
        raise Error(message or "gj2k info failed (%d)" % run.returncode)
    return json.loads(run.stdout)
