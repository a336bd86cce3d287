#!/usr/bin/env bash
# The one device call: builds gj2k with CUDA for Hopper (sm_90), probes the GPU,
# runs every test, then the benchmarks, and prints a short table last.
# Usage on the GPU machine, from the repository root:  bash tests/gpu/run.sh
#   bash tests/gpu/run.sh quick   builds gj2k and the GPU test only, runs those and `bench dwt`.
# Logs go to $OUT when set (the device tool brings them back), else build/gpu-logs.
set -uo pipefail
cd "$(dirname "$0")/../.."
logs=${OUT:-build/gpu-logs}
mkdir -p "$logs"
jobs=$(nproc)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

step() { echo "== $*"; }
step "configure and build (CUDA on, sm_90)"
# nvJPEG2000 for the side-by-side benchmark, when carried (.nvjpeg2k: the
# wheel's nvidia/nvjpeg2k folder, include/ and lib/).
nvjpeg2k=(); [ -f .nvjpeg2k/include/nvjpeg2k.h ] && nvjpeg2k=(-DGJ2K_NVJPEG2K_DIR="$PWD/.nvjpeg2k")
cmake -S . -B build/gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGJ2K_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DGJ2K_WERROR=ON "${nvjpeg2k[@]}" >"$logs/configure.txt" 2>&1 \
  || { tail -30 "$logs/configure.txt"; exit 1; }
targets=(); [ "${1:-}" = quick ] && targets=(--target gj2k test_gpu_stage test_tier1_gpu test_tier1_encode_gpu)
[ "${1:-}" = quick ] && [ ${#nvjpeg2k[@]} -gt 0 ] && targets+=(gj2k_nvjpeg2k_bench)
cmake --build build/gpu -j "$jobs" "${targets[@]}" >"$logs/build.txt" 2>&1 || { tail -40 "$logs/build.txt"; exit 1; }
grep -E 'gj2k: CUDA' "$logs/configure.txt"

if [ "${1:-}" = quick ]; then
  step "GPU tests and bench dwt (quick)"
  [ -d .conformance-input ] && export GJ2K_GPU_CODESTREAMS="$PWD/.conformance-input"
  build/gpu/tests/gpu/test_gpu_stage 2>&1 | tail -15 | tee "$logs/test-gpu.txt"
  rc=${PIPESTATUS[0]}
  for t in test_tier1_gpu test_tier1_encode_gpu; do
    build/gpu/tests/codec/tier1/$t 2>&1 | tail -5 | tee -a "$logs/test-gpu.txt"
    rc=$((rc | PIPESTATUS[0]))
    build/gpu/tests/codec/tier1/$t bench | tee -a "$logs/bench-tier1.txt"
  done
  build/gpu/gj2k bench dwt -n 3 | tee "$logs/bench-dwt.txt"
  rc=$((rc | PIPESTATUS[0]))
  for f in .bench/*.j2k .bench/*.j2c .bench/*.ppm; do
    [ -f "$f" ] && { build/gpu/gj2k bench -i "$f" -n 3 | tee -a "$logs/bench-decode.txt"; rc=$((rc | PIPESTATUS[0])); }
  done
  if [ -x build/gpu/gj2k_nvjpeg2k_bench ] && [ -f .bench/photo4k.ppm ]; then
    build/gpu/gj2k_nvjpeg2k_bench .bench/photo4k.ppm 5 | tee "$logs/nvjpeg2k.txt"
    rc=$((rc | PIPESTATUS[0]))
  fi
  exit "$rc"
fi

step "device probe"
build/gpu/gj2k --version | tee "$logs/version.txt"

step "tests"
# The conformance codestreams, when carried (.conformance-input), for the CPU/GPU decode check.
[ -d .conformance-input ] && export GJ2K_GPU_CODESTREAMS="$PWD/.conformance-input"
ctest --test-dir build/gpu -j "$jobs" --output-on-failure >"$logs/ctest.txt" 2>&1
tests_rc=$?
tail -5 "$logs/ctest.txt"

step "compute-sanitizer memcheck (small cases)"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$sanitizer" ]; then
  for case in forward_matches_cpu inverse_matches_cpu strips_match_cpu; do
    GJ2K_GPU_TEST_CASES=4 "$sanitizer" --tool memcheck --error-exitcode 1 \
      build/gpu/tests/gpu/test_gpu_stage "$case" >"$logs/memcheck-$case.txt" 2>&1
    rc=$?; echo "memcheck $case: $([ $rc -eq 0 ] && echo clean || echo "FAILED ($rc)")" | tee -a "$logs/memcheck.txt"
    [ $rc -eq 0 ] || tests_rc=1
  done
  for t in test_tier1_gpu test_tier1_encode_gpu; do
    for tool in memcheck racecheck; do
      GJ2K_GPU_TEST_CASES=6 "$sanitizer" --tool "$tool" --error-exitcode 1 \
        build/gpu/tests/codec/tier1/$t gpu_matches_host >"$logs/$tool-$t.txt" 2>&1
      rc=$?; echo "$tool $t gpu_matches_host: $([ $rc -eq 0 ] && echo clean || echo "FAILED ($rc)")" | tee -a "$logs/memcheck.txt"
      [ $rc -eq 0 ] || tests_rc=1
    done
  done
else
  echo "memcheck: compute-sanitizer not found" | tee "$logs/memcheck.txt"
fi

step "benchmarks"
build/gpu/tests/codec/tier1/test_tier1_gpu bench | tee "$logs/bench-tier1.txt"
build/gpu/tests/codec/tier1/test_tier1_encode_gpu bench | tee -a "$logs/bench-tier1.txt"
build/gpu/gj2k bench dwt -n 3 | tee "$logs/bench-dwt.txt"
tests_rc=$((tests_rc | PIPESTATUS[0]))
build/gpu/gj2k bench -s 4096x4096 -l 5 -n 3 | tee "$logs/bench.txt"
# Decoding from memory, CPU against GPU (the pipeline over planes and tiles);
# a .ppm times its encodes, CPU against GPU.
for f in .bench/*.j2k .bench/*.j2c .bench/*.ppm; do
  [ -f "$f" ] && { build/gpu/gj2k bench -i "$f" -n 3 | tee -a "$logs/bench-decode.txt"; tests_rc=$((tests_rc | PIPESTATUS[0])); }
done

# gj2k against nvJPEG2000, memory to memory, when it was carried.
if [ -x build/gpu/gj2k_nvjpeg2k_bench ] && [ -f .bench/photo4k.ppm ]; then
  build/gpu/gj2k_nvjpeg2k_bench .bench/photo4k.ppm 5 | tee "$logs/nvjpeg2k.txt"
  tests_rc=$((tests_rc | PIPESTATUS[0]))
fi

# Whole processes, CPU against GPU and auto, 4K and 8K (what --device auto weighs).
[ -f .bench/photo4k.ppm ] && bash tests/gpu/whole_process.sh | tee "$logs/whole-process.txt"

# Side by side with OpenJPEG and Grok when they were carried along
# (../shared/tools/peers.sh .peers; JPEG 2000 files to decode in .bench/).
if [ -f .peers/env.sh ] && [ -d .bench ]; then
  step "decode side by side (best of 3 whole runs, output .ppm, $jobs threads)"
  . .peers/env.sh
  best() { local b=; for i in 1 2 3; do local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo failed; return; }; e=$(date +%s%N)
           local t=$(( (e - s) / 1000000 )); [ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t; done; echo "$b"; }
  for f in .bench/*.j2k .bench/*.j2c; do
    [ -f "$f" ] || continue
    out=$(mktemp -d)
    printf '%-28s gj2k gpu %6s ms  cpu %6s ms  opj %6s ms  grk %6s ms\n' "$(basename "$f")" \
      "$(best build/gpu/gj2k decode -i "$f" -o "$out/g.ppm" -threads "$jobs" --device gpu)" \
      "$(best build/gpu/gj2k decode -i "$f" -o "$out/g.ppm" -threads "$jobs" --device cpu)" \
      "$(best opj_decompress -i "$f" -o "$out/o.ppm" -threads "$jobs")" \
      "$(best grk_decompress -i "$f" -o "$out/k.ppm" -H "$jobs")" | tee -a "$logs/peers.txt"
    rm -rf "$out"
  done
fi

if [ -f .peers/env.sh ] && [ -d .bench ]; then
  step "encode side by side (best of 3 whole runs, lossless and -I -r 20, $jobs threads)"
  for f in .bench/*.ppm; do
    [ -f "$f" ] || continue
    out=$(mktemp -d)
    for mode in lossless lossy; do
      flags=(); [ "$mode" = lossy ] && flags=(-I -r 20)
      printf '%-24s %-8s gj2k cpu %6s ms  gpu %6s ms  opj %6s ms  grk %6s ms\n' "$(basename "$f")" "$mode" \
        "$(best build/gpu/gj2k encode -i "$f" -o "$out/c.j2k" "${flags[@]}" -threads "$jobs" --device cpu)" \
        "$(best build/gpu/gj2k encode -i "$f" -o "$out/g.j2k" "${flags[@]}" -threads "$jobs" --device gpu)" \
        "$(best opj_compress -i "$f" -o "$out/o.j2k" "${flags[@]}" -threads "$jobs")" \
        "$(best grk_compress -i "$f" -o "$out/k.j2k" "${flags[@]}" -H "$jobs")" | tee -a "$logs/peers.txt"
      cmp -s "$out/c.j2k" "$out/g.j2k" && same="gpu = cpu bytes" || same="GPU AND CPU BYTES DIFFER"
      printf '%-24s %-8s bytes: gj2k %s (%s)  opj %s  grk %s\n' "$(basename "$f")" "$mode" \
        "$(stat -c %s "$out/g.j2k" 2>/dev/null)" "$same" "$(stat -c %s "$out/o.j2k" 2>/dev/null)" \
        "$(stat -c %s "$out/k.j2k" 2>/dev/null)" | tee -a "$logs/peers.txt"
    done
    rm -rf "$out"
  done
fi

step "summary"
gpu=$(grep '^GPU:' "$logs/version.txt" | cut -c6-)
passed=$(grep -Eo '[0-9]+% tests passed.*' "$logs/ctest.txt" | tail -1)
printf '%-28s %s\n' "GPU" "${gpu:-none}" "tests" "${passed:-no ctest summary}"
cat "$logs/memcheck.txt"
grep -E '^tier1' "$logs/bench-tier1.txt" | sed 's/^/bench: /'
grep -E '^\| [0-9]' "$logs/bench-dwt.txt" | sed 's/^/dwt: /'
grep -E 'DWT|RCT|ICT|quantize|round trip|GPU|encode|lossless|lossy' "$logs/bench.txt" | sed 's/^ */bench: /'
[ -f "$logs/nvjpeg2k.txt" ] && grep -E '^\| [gn]' "$logs/nvjpeg2k.txt" | sed 's/^/nvjpeg2k: /'
[ -f "$logs/whole-process.txt" ] && grep -E 'ms  gpu|DIFFER' "$logs/whole-process.txt" | sed 's/^/whole: /'
[ -f "$logs/peers.txt" ] && sed 's/^/peers: /' "$logs/peers.txt"
exit $tests_rc
