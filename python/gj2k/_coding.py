"""gj2k.read and gj2k.write over gj2k_decode_* and gj2k_encode_*."""
import ctypes
import os
import threading
import warnings

from . import _library as L
from ._arrays import array_to_image, image_to_array
from ._errors import CodecWarning, InvalidArgumentError, check

FORMATS = {"j2k": L.FORMAT_J2K, "jp2": L.FORMAT_JP2}


class _Remarks:
    """The library's warnings during one call, collected by a ctypes callback
    (which may run on the library's threads) and raised afterwards on the
    caller's thread as gj2k.CodecWarning, where warning filters apply."""

    def __init__(self):
        messages = self.messages = []
        lock = threading.Lock()

        def note(user, message):  # holds the list, not self: no reference cycle
            with lock:
                messages.append(message.decode("utf-8", "replace") if message else "")

        self.callback = L.WARNING_FN(note)

    def install(self, options):
        options.warning = self.callback  # a typed field: no ctypes.cast, whose result
        options.warning_user = None      # would be a reference cycle a call
        options._remarks = self

    def check(self, status, error):
        """A failed call's Error raised, with the remarks on it."""
        check(status, error, self.messages)

    def take(self, status, error, data, size):
        """A call's malloc'ed output as bytes: its Error raised (the remarks
        on it), else the bytes copied and freed, then the remarks warned."""
        self.check(status, error)
        try:
            taken = ctypes.string_at(data, size.value)
        finally:
            L.libc.free(data)
        self.warn(stacklevel=4)
        return taken

    def warn(self, stacklevel=3):
        """Each remark as a gj2k.CodecWarning: called once the call's results
        are taken and its memory freed, since a filter may make it raise."""
        for message in self.messages:
            warnings.warn(message, CodecWarning, stacklevel=stacklevel)


def _device(device):
    if device not in L.DEVICES:
        raise InvalidArgumentError("device must be one of %s, not %r"
                                   % (", ".join(L.DEVICES), device))
    return L.DEVICES[device]


def decode_options(reduce=0, region=None, layers=None, device="auto", threads=0,
                   gpu_context=None, allow_partial=False):
    o = L.gj2k_decode_options()
    o.struct_size = ctypes.sizeof(o)
    o.reduce = reduce
    o.max_layers = layers or 0
    if region is not None:
        x0, y0, x1, y1 = region
        o.use_region = True
        o.region_x0, o.region_y0, o.region_x1, o.region_y1 = x0, y0, x1, y1
    o.threads = threads
    o.guess_sycc = True  # as `gj2k decode` renders
    o.upsample = True    # one array: subsampled components at full size
    o.allow_partial = bool(allow_partial)
    o.device = _device(device)
    o.gpu_context = gpu_context
    _Remarks().install(o)
    return o


def read(source, reduce=0, region=None, layers=None, device="auto", scale=False, threads=0,
         gpu_context=None, allow_partial=False):
    """Decodes a JPEG 2000 file (a path) or its bytes into a numpy array: HxW
    for one component, HxWxC for more, of the smallest integer dtype that
    holds the samples as coded (uint8, uint16, int16 ...), or float32 with
    scale=True (unsigned components to [0, 1], signed to [-1, 1)).
    reduce: resolution levels to discard; region: (x0, y0, x1, y1) on the
    full-resolution reference grid; layers: quality layers to decode (None:
    all); device: "auto", "cpu" or "gpu"; allow_partial: a truncated
    codestream decodes what it holds (with a gj2k.CodecWarning) instead of
    raising. The library's other remarks come as gj2k.CodecWarning too."""
    options = decode_options(reduce, region, layers, device, threads, gpu_context,
                             allow_partial)
    image = L.image_p()
    error = L.gj2k_error()
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        status = L.lib.gj2k_decode_memory(data, len(data), ctypes.byref(options),
                                          ctypes.byref(image), ctypes.byref(error))
    else:
        status = L.lib.gj2k_decode_file(os.fsencode(source), ctypes.byref(options),
                                        ctypes.byref(image), ctypes.byref(error))
    options._remarks.check(status, error)
    try:
        array = image_to_array(image.contents, scale)
    finally:
        L.lib.gj2k_image_destroy(image)
    options._remarks.warn()
    return array


def encode_options(lossless=None, ratios=None, psnr=None, ht=False, tiles=None, levels=None,
                   device="auto", format=None, threads=0, gpu_context=None):
    if ratios is not None and psnr is not None:
        raise InvalidArgumentError("give ratios or psnr, not both")
    targets = ratios if ratios is not None else psnr
    if lossless is None:
        lossless = targets is None
    o = L.gj2k_encode_options()
    o.struct_size = ctypes.sizeof(o)
    o.irreversible = not lossless
    o.high_throughput = bool(ht)
    if tiles is not None:
        o.tile_width, o.tile_height = tiles
    if levels is not None:
        o.num_resolutions = levels + 1
    if format is not None:
        if format not in FORMATS:
            raise InvalidArgumentError("format must be 'j2k' or 'jp2', not %r" % (format,))
        o.format = FORMATS[format]
    if targets is not None:
        values = (ctypes.c_double * len(targets))(*targets)
        o.target = L.TARGET_RATIO if ratios is not None else L.TARGET_PSNR
        o.num_layers = len(targets)
        o.targets = values
        o._keep = values  # alive as long as the options
    o.threads = threads
    o.device = _device(device)
    o.gpu_context = gpu_context
    _Remarks().install(o)
    return o


def write(path, array, lossless=None, ratios=None, psnr=None, ht=False, tiles=None,
          levels=None, device="auto", format=None, precision=None, threads=0,
          gpu_context=None):
    """Encodes an HxW or HxWxC integer array (uint8/int8/uint16/int16, or
    uint32/int32 of up to 24 significant bits) as JPEG 2000. Lossless 5/3 by
    default; ratios (compression ratios, one a layer, decreasing) or psnr
    (dB, increasing) ask for lossy 9/7 layers unless lossless=True. ht: HTJ2K
    code-blocks; tiles: (width, height); levels: decomposition levels;
    precision: bits a sample (e.g. 12 in uint16; None: the dtype's). With a
    path, writes the file (J2K or JP2 by its extension, else `format`) and
    returns None; with path None, returns the bytes (format "j2k" or "jp2")."""
    options = encode_options(lossless, ratios, psnr, ht, tiles, levels, device, format,
                             threads, gpu_context)
    image = array_to_image(array, precision)
    error = L.gj2k_error()
    try:
        if path is not None:
            status = L.lib.gj2k_encode_file(image, os.fsencode(path), ctypes.byref(options), None,
                                            ctypes.byref(error))
            options._remarks.check(status, error)
            options._remarks.warn()
            return None
        data = ctypes.POINTER(ctypes.c_uint8)()
        size = ctypes.c_size_t()
        status = L.lib.gj2k_encode_memory(image, ctypes.byref(options), ctypes.byref(data),
                                          ctypes.byref(size), None, ctypes.byref(error))
        return options._remarks.take(status, error, data, size)
    finally:
        L.lib.gj2k_image_destroy(image)
