"""Bad input raises a gj2k.Error subclass with the library's message, and
never crashes: garbage, missing files, every truncation of a small file
and bytes flipped all through it; the library's remarks come as
gj2k.CodecWarning."""
import warnings

import numpy as np
import pytest

import gj2k


@pytest.fixture(scope="module")
def small():
    y, x = np.mgrid[0:24, 0:32]
    return gj2k.write(None, np.stack([x * 7, y * 9, x + y], axis=-1).astype(np.uint8),
                      format="jp2")


def test_garbage_is_malformed():
    with pytest.raises(gj2k.MalformedError, match="not a JPEG 2000 file"):
        gj2k.read(b"this is no image at all")
    with pytest.raises(gj2k.Error):
        gj2k.read(b"")


def test_missing_file(tmp_path):
    with pytest.raises(gj2k.FileError) as caught:
        gj2k.read(tmp_path / "absent.jp2")
    assert "absent.jp2" in str(caught.value)
    assert isinstance(caught.value, OSError)
    with pytest.raises(gj2k.FileError):
        gj2k.info(tmp_path / "absent.jp2")


def test_cut_short_is_truncated(small):
    with warnings.catch_warnings():  # a failed call raises its remarks with it, not as warnings
        warnings.simplefilter("error", gj2k.CodecWarning)
        with pytest.raises(gj2k.TruncatedError) as caught:
            gj2k.read(small[: len(small) * 2 // 3])
    assert any("truncated" in remark for remark in caught.value.remarks)


def test_every_truncation_raises_or_decodes(small):
    for size in range(0, len(small), 7):
        try:
            with warnings.catch_warnings():  # a tail cut short of nothing needed: remarks
                warnings.simplefilter("ignore", gj2k.CodecWarning)
                array = gj2k.read(small[:size])
        except gj2k.Error as error:  # the library's message, not the binding's stand-in
            assert str(error) and not str(error).startswith("gj2k error ")
        else:  # the tail held nothing the image needs
            assert array.shape == (24, 32, 3)


def test_flipped_bytes_raise_or_decode(small):
    rng = np.random.default_rng(7)
    raised = 0
    with warnings.catch_warnings(record=True) as remarks:
        warnings.simplefilter("always")
        for _ in range(300):
            data = bytearray(small)
            for position in rng.integers(0, len(data), 3):
                data[position] ^= int(rng.integers(1, 256))
            try:
                gj2k.read(bytes(data))
            except gj2k.Error:
                raised += 1
    assert raised > 0
    # what decoded despite the damage said so, one line each
    ours = [r for r in remarks if issubclass(r.category, gj2k.CodecWarning)]
    assert ours and all(str(r.message) for r in ours)


def test_bad_arguments():
    with pytest.raises(gj2k.InvalidArgumentError, match="device"):
        gj2k.read(b"", device="tpu")
    with pytest.raises(gj2k.InvalidArgumentError, match="shape"):
        gj2k.write(None, np.zeros((2, 3, 4, 5), np.uint8))
    with pytest.raises(gj2k.InvalidArgumentError, match="ratios or psnr"):
        gj2k.write(None, np.zeros((8, 8), np.uint8), ratios=[10], psnr=[40])
    with pytest.raises(gj2k.Error):
        gj2k.write("/nonexistent-dir/out.j2k", np.zeros((8, 8), np.uint8))


def test_info_of_a_bad_file(tmp_path, small):
    bad = tmp_path / "bad.jp2"
    bad.write_bytes(small[:40])
    with pytest.raises(gj2k.Error):
        gj2k.info(bad)


def test_cut_short_decodes_with_allow_partial(small):
    cut = small[: len(small) * 2 // 3]
    with pytest.warns(gj2k.CodecWarning) as remarks:
        array = gj2k.read(cut, allow_partial=True)
    assert array.shape == (24, 32, 3)
    assert all(str(remark.message) for remark in remarks)
    with warnings.catch_warnings():  # a caller may make the remarks errors
        warnings.simplefilter("error", gj2k.CodecWarning)
        with pytest.raises(gj2k.CodecWarning):
            gj2k.read(cut, allow_partial=True)


def test_a_whole_file_has_no_remarks(small):
    with warnings.catch_warnings():
        warnings.simplefilter("error", gj2k.CodecWarning)
        assert gj2k.read(small).shape == (24, 32, 3)
