#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds consumers of it three
# ways: pkg-config (shared and --static) and CMake's find_package.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR C_COMPILER
set -euo pipefail
build=$1 source=$2 cc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/gj2k include/gj2k.h; do [ -e "$work/prefix/$f" ] || { echo "missing $f"; exit 1; }; done
libdir=$(dirname "$(find "$work/prefix" -name gj2k.pc)")
export PKG_CONFIG_PATH=$libdir
"$work/prefix/bin/gj2k" --version | grep -q '^gj2k '
"$cc" -o "$work/pc_shared" "$source/consumer.c" $(pkg-config --cflags --libs gj2k) -Wl,-rpath,"$libdir/.."
"$work/pc_shared"
"$cc" -o "$work/pc_static" "$source/consumer.c" $(pkg-config --cflags gj2k) \
      "$libdir/../libgj2k.a" $(pkg-config --libs --static gj2k | sed 's/-lgj2k//')
"$work/pc_static"
cmake -S "$source" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_BUILD_RPATH="$libdir/.." >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer_shared"
"$work/cmake/consumer_static"
echo "install: pkg-config and find_package consumers built and ran"
