#!/usr/bin/env bash
# Sets up, builds and runs every test:
#   1. a release build (CUDA when nvcc is found, warnings as errors) and all its tests,
#      then the batch runs' Slurm and GNU parallel test (tests/integration);
#   2. the Python package (scripts/test_python.sh): pip install ./python in a venv, pytest;
#   3. an ASan+UBSan build with clang, the libFuzzer targets included, and all its tests
#      (each reader fuzzer runs GJ2K_FUZZ_SECONDS from its seed corpus).
# The shared test data is expected at ../shared (or GJ2K_SHARED_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_dependencies.sh
jobs=$(nproc)
shared=${GJ2K_SHARED_DIR:-$(cd .. && pwd)/shared}
[ -d "$shared" ] || echo "warning: shared test data not found at $shared: tests that need it will be skipped"

echo "== release build"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGJ2K_WERROR=ON \
      -DGJ2K_SHARED_DIR="$shared"
cmake --build build/release -j "$jobs"
ctest --test-dir build/release -j "$jobs" --output-on-failure

echo "== batch runs fanned out: a one-node Slurm cluster and GNU parallel"
bash tests/integration/cluster_shards.sh build/release/gj2k

echo "== Python package: pip install ./python, pytest python/tests"
bash scripts/test_python.sh

echo "== ASan+UBSan build with fuzzers"
CC=clang cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DGJ2K_WERROR=ON -DGJ2K_CUDA=OFF -DGJ2K_SANITIZE=address,undefined -DGJ2K_FUZZ=ON \
      -DGJ2K_SHARED_DIR="$shared"
cmake --build build/sanitize -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/sanitize -j "$jobs" --output-on-failure
