"""The ctypes mirrors of gj2k.h's structs (gj2k/_library.py) against the C
compiler: a program built from include/gj2k.h prints the sizeof of each
struct and the offsetof of each field mirrored, which must equal ctypes'."""
import ctypes
import os
import shutil
import subprocess

import pytest

from conftest import REPO
from gj2k import _library as L


def c_program():
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "gj2k.h"',
             "int main(void) {"]
    for struct in L.MIRRORED:
        name = struct.__name__
        lines.append('printf("%s sizeof %%zu\\n", sizeof(%s));' % (name, name))
        for field, _ in struct._fields_:
            lines.append('printf("%s %s %%zu\\n", offsetof(%s, %s));' % (name, field, name, field))
    lines += ["return 0;", "}"]
    return "\n".join(lines) + "\n"


def ctypes_layout():
    rows = []
    for struct in L.MIRRORED:
        rows.append("%s sizeof %d" % (struct.__name__, ctypes.sizeof(struct)))
        for field, _ in struct._fields_:
            rows.append("%s %s %d" % (struct.__name__, field, getattr(struct, field).offset))
    return rows


def test_mirrored_structs_match_the_header(tmp_path):
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    source = tmp_path / "layout.c"
    source.write_text(c_program())
    program = tmp_path / "layout"
    subprocess.run([compiler, "-std=c17", "-I", str(REPO / "include"), str(source), "-o",
                    str(program)], check=True)
    printed = subprocess.run([str(program)], check=True, capture_output=True,
                             text=True).stdout.split("\n")[:-1]
    assert printed == ctypes_layout()

