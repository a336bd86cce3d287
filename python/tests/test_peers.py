"""gj2k against OpenJPEG as Pillow and imagecodecs wrap it: the shared
JPEG 2000 files decode to the same samples, and what gj2k.write makes
decodes in both to the array written (lossless) or within 1 of gj2k's
own decoding (lossy)."""
import io

import numpy as np
import pytest

import gj2k

try:
    from PIL import Image
except ImportError:
    Image = None
try:
    import imagecodecs
except ImportError:
    imagecodecs = None
# each test skips for the peer it lacks only
needs_pillow = pytest.mark.skipif(Image is None, reason="Pillow is not installed")
needs_imagecodecs = pytest.mark.skipif(imagecodecs is None, reason="imagecodecs is not installed")

# kodak_2layers_lrcp.j2c is left out: gj2k's samples are up to 273 (of 4095)
# from OpenJPEG's and 187 from Grok's, which are 182 apart themselves.
FILES = ["buxR.j2k", "buxI.j2k", "pacs.ge.j2k", "CT_Phillips_JPEG2K_Decompr_Problem.j2k",
         "htj2k/Bretagne1_ht.j2k", "htj2k/Bretagne1_ht_lossy.j2k", "htj2k/byte.jph",
         "htj2k/byte_causal.jhc"]


@pytest.mark.parametrize("name", FILES)
@needs_imagecodecs
def test_imagecodecs_decodes_the_same(shared, name):
    path = shared / "images" / name
    ours = gj2k.read(path)
    theirs = imagecodecs.jpeg2k_decode(path.read_bytes())
    assert theirs.dtype == ours.dtype
    assert np.array_equal(theirs, ours)


def pillow_view(ours, precision, signed):
    """gj2k's samples as Pillow gives them: 16-bit grey ('I;16') unsigned,
    signed ones offset by 2^15, fewer bits scaled up to 16."""
    if ours.dtype.itemsize == 1:
        return ours
    values = ours.astype(np.int64)
    if signed:
        return values + (1 << 15)
    return values << (16 - precision)


@pytest.mark.parametrize("name", FILES)
@needs_pillow
def test_pillow_decodes_the_same(shared, name):
    path = shared / "images" / name
    ours = gj2k.read(path)
    siz = gj2k.info(path)["codestream"]["siz"]["components"][0]
    with Image.open(path) as image:
        theirs = np.asarray(image)
    assert theirs.shape == ours.shape
    assert np.array_equal(theirs.astype(np.int64), pillow_view(ours, siz["precision"],
                                                                siz["signed"]))


@pytest.fixture(scope="module")
def photo(shared):
    with Image.open(shared / "images" / "Bretagne1.ppm") as image:
        return np.asarray(image)


@pytest.mark.parametrize("options", [{}, {"ht": True}, {"tiles": (256, 256)},
                                     {"format": "jp2"}], ids=["plain", "ht", "tiles", "jp2"])
@needs_pillow
@needs_imagecodecs
def test_peers_decode_what_gj2k_writes_losslessly(photo, options):
    data = gj2k.write(None, photo, **options)
    assert np.array_equal(imagecodecs.jpeg2k_decode(data), photo)
    with Image.open(io.BytesIO(data)) as image:
        assert np.array_equal(np.asarray(image), photo)


@needs_pillow
@needs_imagecodecs
def test_peers_decode_what_gj2k_writes_lossy(photo):
    data = gj2k.write(None, photo, ratios=[30])
    ours = gj2k.read(data).astype(int)
    assert not np.array_equal(ours, photo)
    assert np.abs(imagecodecs.jpeg2k_decode(data).astype(int) - ours).max() <= 1
    with Image.open(io.BytesIO(data)) as image:
        assert np.abs(np.asarray(image).astype(int) - ours).max() <= 1
