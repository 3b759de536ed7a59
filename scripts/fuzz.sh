#!/usr/bin/env bash
# Fuzzing, for SECONDS (default 600) each:
#   scripts/fuzz.sh [load|analysis|cli|all] [SECONDS]
# load, analysis: libFuzzer (clang, ASan + UBSan) on the mechanism loader, and on the analyses a
#   file reaches (over-driven check, kinematics, Matrix R and penalty dynamics, with the file's own
#   time span, step and driver functions mutated), starting from the samples. Crashing inputs go
#   to build-fuzz/crashes/.
# cli: linkwright-cli's kinematics and simulate with random time spans, steps, tolerances, output
#   intervals and singular driver functions (tests/fuzz/cli_fuzz.py); failing command lines go to
#   build-fuzz/crashes/.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
mode="${1:-all}"
case "$mode" in load|analysis|cli|all) shift || true ;; *) mode=all ;; esac
seconds="${1:-600}"
# the libFuzzer harnesses need clang; the CLI fuzzer runs the ordinary build
[ "$mode" = cli ] || LW_PACKAGES+=(clang libclang-rt-14-dev)
lw_install_deps
fuzz="$LW_ROOT/build-fuzz"
mkdir -p "$fuzz/crashes"
status=0
if [ "$mode" = load ] || [ "$mode" = analysis ] || [ "$mode" = all ]; then
  if [ ! -f "$fuzz/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S "$LW_ROOT" -B "$fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DLW_BUILD_GUI=OFF -DLW_BUILD_BENCH=OFF -DLW_BUILD_FUZZ=ON \
      -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
  fi
  for harness in load analysis; do
    [ "$mode" = all ] || [ "$mode" = "$harness" ] || continue
    cmake --build "$fuzz" -j "${LW_JOBS:-2}" --target "lw_${harness}_fuzzer"
    mkdir -p "$fuzz/corpus-$harness"
    cp -n "$LW_ROOT"/samples/*.json "$fuzz/corpus-$harness/" 2>/dev/null || true
    "$fuzz/tests/fuzz/lw_${harness}_fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
      -dict="$LW_ROOT/tests/fuzz/mechanism.dict" -artifact_prefix="$fuzz/crashes/$harness-" -print_final_stats=1 \
      "$fuzz/corpus-$harness" || status=1
  done
fi
if [ "$mode" = cli ] || [ "$mode" = all ]; then
  # an existing build is used as it is (no CMake run, no rebuild); only a missing one is made
  if [ ! -x "$LW_BUILD/app/linkwright-cli" ]; then
    lw_configure
    lw_build --target linkwright-cli
  fi
  python3 "$LW_ROOT/tests/fuzz/cli_fuzz.py" "$LW_BUILD/app/linkwright-cli" "$LW_ROOT/samples" "$seconds" "$fuzz/crashes" || status=1
fi
exit $status
