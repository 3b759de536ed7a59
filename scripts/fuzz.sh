#!/usr/bin/env bash
# Fuzzes the mechanism loader with libFuzzer (clang, ASan + UBSan) for SECONDS (default 600),
# starting from the samples. Crashing inputs are written to build-fuzz/crashes/.
#   scripts/fuzz.sh [SECONDS]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
LW_PACKAGES+=(clang libclang-rt-14-dev)
lw_install_deps
fuzz="$LW_ROOT/build-fuzz"
if [ ! -f "$fuzz/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$LW_ROOT" -B "$fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLW_BUILD_GUI=OFF -DLW_BUILD_BENCH=OFF -DLW_BUILD_FUZZ=ON \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
fi
cmake --build "$fuzz" -j "${LW_JOBS:-2}" --target lw_load_fuzzer
mkdir -p "$fuzz/corpus" "$fuzz/crashes"
cp -n "$LW_ROOT"/samples/*.json "$fuzz/corpus/" 2>/dev/null || true
"$fuzz/tests/fuzz/lw_load_fuzzer" -max_total_time="${1:-600}" -timeout=10 -rss_limit_mb=4096 \
  -dict="$LW_ROOT/tests/fuzz/mechanism.dict" -artifact_prefix="$fuzz/crashes/" -print_final_stats=1 \
  "$fuzz/corpus"
