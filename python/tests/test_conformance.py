"""Each conformance file (../shared/conformance/input) decoded by gj2k.read
equals what the gj2k program decodes (`gj2k decode --upsample` to raw:
planar, big-endian, two's complement, 1 byte up to 8 bits else 2)."""
import subprocess

import numpy as np
import pytest

import gj2k
from conftest import shared_dir

INPUTS = sorted((shared_dir() / "conformance" / "input").glob("*.j*"))


def test_the_conformance_files_are_there(shared):
    # without them the test below has no cases: skipped, where this says why
    assert len(INPUTS) > 0, "no conformance files in %s" % (shared / "conformance" / "input")


def raw_planes(raw, height, width, channels):
    step = len(raw) // (height * width * channels)
    assert step * height * width * channels == len(raw), "raw output of an unexpected size"
    return np.frombuffer(raw, ">u1" if step == 1 else ">u2").reshape(channels, height, width)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_conformance_file_as_the_program_decodes_it(path, cli, tmp_path):
    raw = tmp_path / "out.raw"
    run = subprocess.run([cli, "decode", "-i", str(path), "-o", str(raw), "--upsample"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    array = gj2k.read(path)
    height, width = array.shape[:2]
    channels = 1 if array.ndim == 2 else array.shape[2]
    planes = raw_planes(raw.read_bytes(), height, width, channels)
    # two's complement as written, against the array's own values
    as_coded = array.reshape(height, width, channels).transpose(2, 0, 1).astype(np.int64)
    assert np.array_equal(planes.astype(np.int64) & 0xFFFF,
                          as_coded & (0xFF if planes.dtype.itemsize == 1 else 0xFFFF))
