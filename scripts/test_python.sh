#!/usr/bin/env bash
# The Python package (python/): a venv in build/python-venv with the build
# and test tools from PyPI, `pip install ./python` (which builds libgj2k and
# the gj2k program with CMake, CPU only unless GJ2K_CUDA=ON), then its tests.
# They compare with build/release/gj2k when it is built (or GJ2K_CLI).
# The shared test data is expected at ../shared (or GJ2K_SHARED_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
export GJ2K_SHARED_DIR=${GJ2K_SHARED_DIR:-$(cd .. && pwd)/shared}
venv=build/python-venv
mkdir -p build
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check scikit-build-core numpy pytest pillow \
  imagecodecs
start=$(date +%s)
"$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation --force-reinstall \
  --no-deps ./python
echo "pip install ./python: $(($(date +%s) - start)) s"
"$venv/bin/python" -m pytest -q python/tests
