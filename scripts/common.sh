# Shared by run.sh and test.sh: install what is missing, configure once, build incrementally.
# shellcheck shell=bash
set -euo pipefail

LW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LW_BUILD="${LW_BUILD_DIR:-$LW_ROOT/build}"

# Debian 12 packages: toolchain, libraries, and what headless GUI tests need.
LW_PACKAGES=(
  cmake ninja-build ccache g++ pkg-config
  qt6-base-dev libqt6opengl6-dev qt6-svg-dev libxkbcommon-dev
  libvtk9-dev libqcustomplot-dev libeigen3-dev libsuitesparse-dev libcolpack-dev
  nlohmann-json3-dev libcli11-dev libnlopt-cxx-dev libboost-dev libgtest-dev libgmock-dev libbenchmark-dev
  xvfb xauth libgl1-mesa-dri fonts-dejavu-core python3-jsonschema
  ffmpeg  # the window's animation export (GIF, MP4) runs it
  libtbb-dev  # the sweeps' thread pool (oneTBB)
  # the Python module (app/python): pybind11, NumPy, pandas, Dask, pytest, Matplotlib for the example
  pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-dask python3-distributed python3-matplotlib
)

lw_install_deps() {
  local missing=()
  for p in "${LW_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "linkwright: installing ${#missing[@]} Debian package(s): ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

lw_configure() {
  if [ ! -f "$LW_BUILD/build.ninja" ]; then
    cmake -S "$LW_ROOT" -B "$LW_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
  fi
}

lw_build() {
  # two cores: -j2; ccache makes rebuilds after a fresh clone cheap on the same machine
  cmake --build "$LW_BUILD" -j "${LW_JOBS:-2}" "$@"
}
