#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs the whole test suite (GUI tests under
# Xvfb when there is no display). Extra arguments go to ctest (e.g. -R scene).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
lw_install_deps
lw_configure
lw_build
export LW_TEST_ARTIFACTS="${LW_TEST_ARTIFACTS:-$LW_BUILD/test-artifacts}"
mkdir -p "$LW_TEST_ARTIFACTS"
cd "$LW_BUILD"
ctest --output-on-failure -j 2 "$@"
