#!/usr/bin/env bash
# Builds the engine, the CLI and their tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (GCC; no GUI: Qt and VTK are not built with them) in build-asan/, and runs those tests. Any
# sanitizer report fails the run. Extra arguments go to ctest (e.g. -R Convergence).
#   scripts/sanitize.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
lw_install_deps
asan="$LW_ROOT/build-asan"
if [ ! -f "$asan/build.ninja" ]; then
  cmake -S "$LW_ROOT" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLW_BUILD_GUI=OFF -DLW_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
fi
cmake --build "$asan" -j "${LW_JOBS:-2}"
# alloc_dealloc_mismatch=0: GCC 12's std::stable_sort frees its temporary buffer (taken with
# operator new(nothrow)) in a way ASan reports as a mismatch; it is the standard library's, not ours
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:alloc_dealloc_mismatch=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$asan"
ctest --output-on-failure -j "${LW_JOBS:-2}" "$@"
