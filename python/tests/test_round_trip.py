"""Arrays through gj2k.write and gj2k.read: every dtype and channel count
losslessly, to bytes and to files; the lossy and HT options; reduce,
region, layers and scale."""
import numpy as np
import pytest

import gj2k

DTYPES = {np.uint8: 8, np.int8: 8, np.uint16: 16, np.int16: 16, np.uint32: 20, np.int32: 24,
          np.bool_: 1}


def noise(shape, dtype, bits, seed=1):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    signed = np.dtype(dtype).kind == "i"
    low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    # a smooth ramp with noise, spanning the whole range
    ramp = np.linspace(low, high - 1, shape[0] * shape[1]).reshape(shape[:2])
    if len(shape) == 3:
        ramp = ramp[:, :, None] + np.zeros(shape)
    values = ramp + rng.integers(-50, 50, shape)
    return np.clip(values, low, high - 1).astype(dtype)


def photo(height=96, width=128):
    y, x = np.mgrid[0:height, 0:width]
    rgb = np.stack([x * 2, y * 2, (x + y)], axis=-1) % 256
    return (rgb + np.random.default_rng(3).integers(0, 8, rgb.shape)).clip(0, 255).astype(
        np.uint8)


def expected_dtype(dtype):
    return {np.uint32: np.uint32, np.int32: np.int32, np.bool_: np.uint8}.get(dtype, dtype)


@pytest.mark.parametrize("dtype", list(DTYPES), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_lossless_round_trip_of_bytes(dtype, channels):
    shape = (37, 53) if channels == 1 else (37, 53, channels)
    array = noise(shape, dtype, DTYPES[dtype])
    data = gj2k.write(None, array)
    assert data[:4] == b"\xff\x4f\xff\x51"  # SOC, SIZ: a codestream
    back = gj2k.read(data)
    assert back.shape == array.shape
    assert back.dtype == expected_dtype(dtype)
    assert np.array_equal(back, array.astype(back.dtype))


@pytest.mark.parametrize("suffix", [".j2k", ".jp2"])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_lossless_round_trip_of_files(tmp_path, suffix, channels):
    shape = (40, 30) if channels == 1 else (40, 30, channels)
    array = noise(shape, np.uint16, 12)
    path = tmp_path / ("out" + suffix)
    assert gj2k.write(path, array) is None
    assert path.read_bytes()[:4] == (b"\xff\x4f\xff\x51" if suffix == ".j2k" else
                                     b"\x00\x00\x00\x0c")
    assert np.array_equal(gj2k.read(path), array)
    assert np.array_equal(gj2k.read(str(path)), array)
    assert np.array_equal(gj2k.read(path.read_bytes()), array)


def test_jp2_as_bytes():
    array = photo()
    data = gj2k.write(None, array, format="jp2")
    assert data[4:8] == b"jP  "
    assert np.array_equal(gj2k.read(data), array)


def psnr(a, b):
    mse = np.mean((a.astype(float) - b.astype(float)) ** 2)
    return 10 * np.log10(255.0 ** 2 / mse)


def test_lossy_ratio_and_psnr():
    array = photo()
    lossless = gj2k.write(None, array)
    small = gj2k.write(None, array, ratios=[20])
    assert len(small) <= array.nbytes / 20 * 1.05 and len(small) < len(lossless) / 2
    assert 25 < psnr(gj2k.read(small), array) < 99
    aimed = gj2k.read(gj2k.write(None, array, psnr=[38]))
    assert 37 <= psnr(aimed, array) < 45


def test_ht_tiles_and_levels():
    array = photo()
    plain = gj2k.write(None, array)
    ht = gj2k.write(None, array, ht=True)
    assert ht != plain and np.array_equal(gj2k.read(ht), array)
    tiled = gj2k.write(None, array, tiles=(64, 32), levels=2)
    assert np.array_equal(gj2k.read(tiled), array)
    header = gj2k.read(tiled, reduce=2)
    assert header.shape == (24, 32, 3)
    with pytest.raises(gj2k.Error):
        gj2k.read(tiled, reduce=3)  # only 2 levels to discard


def test_reduce_region_and_layers():
    array = photo(128, 160)
    data = gj2k.write(None, array, lossless=True, ratios=[40, 10, 1])
    full = gj2k.read(data)
    assert np.array_equal(full, array)  # the last layer is lossless
    assert gj2k.read(data, reduce=1).shape == (64, 80, 3)
    part = gj2k.read(data, region=(16, 8, 80, 72))
    assert np.array_equal(part, array[8:72, 16:80])
    first = gj2k.read(data, layers=1)
    assert first.shape == array.shape and 20 < psnr(first, array) < psnr(
        gj2k.read(data, layers=2), array)


def test_scale():
    array = noise((20, 30), np.uint16, 16)
    scaled = gj2k.read(gj2k.write(None, array), scale=True)
    assert scaled.dtype == np.float32
    assert np.allclose(scaled, array / 65535.0, atol=1e-6)
    signed = noise((20, 30), np.int8, 8)
    scaled = gj2k.read(gj2k.write(None, signed), scale=True)
    assert np.allclose(scaled, signed / 128.0) and scaled.min() >= -1 and scaled.max() < 1


def test_values_past_24_bits_are_refused():
    with pytest.raises(gj2k.InvalidArgumentError, match="24"):
        gj2k.write(None, np.full((4, 4), 1 << 24, np.uint32))
    with pytest.raises(gj2k.InvalidArgumentError, match="dtype"):
        gj2k.write(None, np.zeros((4, 4), np.float32))


def test_precision():
    array = noise((30, 20, 3), np.uint16, 12)
    data = gj2k.write(None, array, precision=12)
    assert len(data) < len(gj2k.write(None, array))
    back = gj2k.read(data)
    assert back.dtype == np.uint16 and np.array_equal(back, array)
    assert np.allclose(gj2k.read(data, scale=True), array / 4095.0, atol=1e-6)
    with pytest.raises(gj2k.InvalidArgumentError, match="fit 10 bits"):
        gj2k.write(None, array, precision=10)
