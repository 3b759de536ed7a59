#!/usr/bin/env bash
# Installs what is missing, builds, and opens Linkwright on samples/five-bar.json or on FILE.
#   scripts/run.sh [FILE]
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
lw_install_deps
lw_configure
lw_build --target linkwright
file="${1:-$LW_ROOT/samples/five-bar.json}"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "linkwright: no display. On a headless machine use: xvfb-run -a scripts/run.sh [FILE]" >&2
  exit 2
fi
exec "$LW_BUILD/app/gui/linkwright" "$file"
