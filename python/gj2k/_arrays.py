"""Between gj2k_image and numpy arrays: a decoded image's components into
one HxW or HxWxC array, and an array into a new gj2k_image."""
import ctypes

import numpy as np

from . import _library as L
from ._errors import InvalidArgumentError, UnsupportedError, check

L_NARROW = 31  # GJ2K_MAX_NARROW_PRECISION: deeper samples are int64


def dtype_for(components):
    """The smallest integer dtype that holds every component as coded."""
    bits = max(c.precision for c in components)
    signed = any(c.is_signed for c in components)
    if bits > L_NARROW:
        return np.dtype(np.int64)
    if signed:
        return np.dtype(np.int8 if bits <= 8 else np.int16 if bits <= 16 else np.int32)
    return np.dtype(np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else np.uint32)


def _component_samples(c):
    count = c.width * c.height
    pointer = c.samples if c.precision <= L_NARROW else c.wide_samples
    if count == 0:
        return np.zeros((c.height, c.width), np.int64)
    return np.ctypeslib.as_array(pointer, shape=(count,)).reshape(c.height, c.width)


def image_to_array(image, scale=False):
    """A copy of the image's samples: HxW for one component, else HxWxC."""
    components = [image.components[i] for i in range(image.num_components)]
    if not components:
        raise UnsupportedError("the image has no components")
    shapes = {(c.width, c.height) for c in components}
    if len(shapes) > 1:
        raise UnsupportedError("components of different sizes: %s" % sorted(shapes))
    dtype = np.dtype(np.float32) if scale else dtype_for(components)
    planes = []
    for c in components:
        samples = _component_samples(c)
        if scale:
            top = 2.0 ** (c.precision - 1) if c.is_signed else 2.0 ** c.precision - 1
            planes.append((samples / top).astype(np.float32))
        else:
            planes.append(samples.astype(dtype))
    return planes[0] if len(planes) == 1 else np.stack(planes, axis=-1)


def precision_of(array):
    """Bits per sample and signedness that an array's dtype (and, for 32-bit
    integers, its values) calls for."""
    kind, size = array.dtype.kind, array.dtype.itemsize
    if kind == "b":
        return 1, False
    if kind not in "ui" or size > 4:
        raise InvalidArgumentError("cannot encode samples of dtype %s (integers of up to 32 "
                                   "bits only)" % array.dtype)
    signed = kind == "i"
    if size < 4:
        return 8 * size, signed
    low, high = (int(array.min()), int(array.max())) if array.size else (0, 0)
    bits = max(high.bit_length(), (-low - 1).bit_length() if low < 0 else 0) + signed
    if bits > 24:
        raise InvalidArgumentError("samples of %d bits: gj2k encodes at most 24" % bits)
    return max(bits, 1), signed


def array_to_image(array, precision=None):
    """A new gj2k_image (free with gj2k_image_destroy) holding the array, its
    components of `precision` bits (None: as precision_of says)."""
    array = np.asarray(array)
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3 or array.shape[0] == 0 or array.shape[1] == 0 or array.shape[2] == 0:
        raise InvalidArgumentError("expected an HxW or HxWxC array, got shape %s"
                                   % (array.shape,))
    height, width, channels = array.shape
    bits, signed = precision_of(array)
    if precision is not None:
        if not 1 <= precision <= 24:
            raise InvalidArgumentError("precision %s: gj2k encodes 1 to 24 bits" % precision)
        low, high = (-(1 << (precision - 1)), (1 << (precision - 1)) - 1) if signed else (
            0, (1 << precision) - 1)
        if array.size and (array.min() < low or array.max() > high):
            raise InvalidArgumentError("samples do not fit %s bits" % precision)
        bits = precision
    infos = (L.gj2k_component_info * channels)()
    for info in infos:
        info.dx = info.dy = 1
        info.precision = bits
        info.is_signed = signed
    image = L.image_p()
    error = L.gj2k_error()
    check(L.lib.gj2k_image_create(ctypes.byref(image), 0, 0, width, height, channels, infos,
                                  ctypes.byref(error)), error)
    try:
        image.contents.color_space = L.COLOR_GRAY if channels < 3 else L.COLOR_SRGB
        for k in range(channels):
            c = image.contents.components[k]
            samples = np.ctypeslib.as_array(c.samples, shape=(height * width,))
            samples[:] = array[:, :, k].reshape(-1)
    except BaseException:
        L.lib.gj2k_image_destroy(image)
        raise
    return image
