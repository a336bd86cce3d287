#!/usr/bin/env bash
# Installs what gj2k needs to build and test on Debian 12 (run as root).
# Quick when everything is already there. CUDA is optional: nvcc is used when
# found (e.g. /usr/local/cuda/bin/nvcc); without it the CPU build is complete.
set -euo pipefail
packages=(cmake ninja-build gcc clang pkg-config libpng-dev libtiff-dev liblcms2-dev libopenjp2-tools
          openjph-tools grokj2k-tools valgrind hyperfine python3 python3-venv slurm-wlm munge parallel
          libimage-exiftool-perl strace)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
