#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds consumers of it: with
# pkg-config (shared, and --static as it comes), with the build tree's
# gj2k-uninstalled.pc, and with CMake's find_package (shared and static).
# Usage: check_install.sh BUILD_DIR SOURCE_DIR C_COMPILER
set -euo pipefail
build=$1 source=$2 cc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/gj2k include/gj2k.h include/gj2k_encode.h; do [ -e "$work/prefix/$f" ] || { echo "missing $f"; exit 1; }; done
libdir=$(dirname "$(find "$work/prefix" -name gj2k.pc)")
export PKG_CONFIG_PATH=$libdir
[[ $("$work/prefix/bin/gj2k" --version) == "gj2k "* ]]
"$cc" -o "$work/pc_shared" "$source/consumer.c" $(pkg-config --cflags --libs gj2k) -Wl,-rpath,"$libdir/.."
"$work/pc_shared"
# `pkg-config --static` as it comes, against a copy of the tree without the
# shared library (so -lgj2k can only be the archive): no path or library added
cp -r "$work/prefix" "$work/static"
find "$work/static" -name 'libgj2k.so*' -delete
PKG_CONFIG_PATH=$(dirname "$(find "$work/static" -name gj2k.pc)") \
  "$cc" -o "$work/pc_static" "$source/consumer.c" $(PKG_CONFIG_PATH=$(dirname "$(find "$work/static" -name gj2k.pc)") pkg-config --cflags --libs --static gj2k)
"$work/pc_static"
! grep -q -- '-L/' "$(find "$work/static" -name gj2k.pc)" || { echo "gj2k.pc names a path: $(grep Libs "$(find "$work/static" -name gj2k.pc)")"; exit 1; }
# the build tree's gj2k-uninstalled.pc, which pkg-config takes over gj2k.pc there
"$cc" -o "$work/pc_tree" "$source/consumer.c" $(PKG_CONFIG_PATH=$build pkg-config --cflags --libs gj2k) \
      -Wl,-rpath,"$build"
"$work/pc_tree"
cmake -S "$source" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_BUILD_RPATH="$libdir/.." >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer_shared"
"$work/cmake/consumer_static"
echo "install: pkg-config and find_package consumers built and ran"
