"""gj2k.info gives what `gj2k info --json` prints (the program of the
repository's build, GJ2K_CLI, compared with the library's
gj2k_describe_file), and the remarks on a damaged file as warnings."""
import json
import subprocess

import numpy as np
import pytest

import gj2k

NAMES = ["images/buxR.j2k", "images/pacs.ge.j2k", "images/kodak_2layers_lrcp.j2c",
         "images/htj2k/byte.jph", "images/htj2k/Bretagne1_ht.j2k", "images/Rome.bmp",
         "images/pngsuite/basn6a16.png", "images/flower-rgb-planar-12.tif",
         "conformance/input/file1.jp2", "conformance/input/file9.jp2",
         "conformance/input/p0_06.j2k", "conformance/input/p1_01.j2k"]


def cli_info(cli, path):
    run = subprocess.run([cli, "info", "--json", str(path)], capture_output=True, check=True)
    return json.loads(run.stdout)


@pytest.mark.parametrize("name", NAMES)
def test_info_equals_the_program(shared, cli, name):
    path = shared / name
    described = gj2k.info(path)
    assert described == cli_info(cli, path)
    assert described["file"] == str(path)


def test_info_of_a_written_file(cli, tmp_path):
    path = tmp_path / "written.jp2"
    gj2k.write(path, np.zeros((30, 50, 3), np.uint16) + 4000, tiles=(16, 16), levels=3,
               precision=12)
    described = gj2k.info(path)
    assert described == cli_info(cli, path)
    assert described["format"] == "JP2"
    siz = described["codestream"]["siz"]
    assert (siz["x1"], siz["y1"], siz["tile_width"], siz["tiles_across"]) == (50, 30, 16, 4)
    assert [c["precision"] for c in siz["components"]] == [12, 12, 12]
    assert described["codestream"]["main_header"]["cod"]["coding"]["levels"] == 3


def test_info_of_a_cut_codestream_warns(cli, tmp_path):
    rng = np.random.default_rng(3)
    data = gj2k.write(None, rng.integers(0, 256, (48, 64, 3), dtype=np.uint8), format="j2k")
    path = tmp_path / "cut.j2k"
    path.write_bytes(data[: len(data) * 2 // 3])
    with pytest.warns(gj2k.CodecWarning) as remarks:
        described = gj2k.info(path)
    assert any("truncated" in str(remark.message) for remark in remarks)
    assert described == cli_info(cli, path)
    assert described["codestream"]["markers"]["eoc"] is False
