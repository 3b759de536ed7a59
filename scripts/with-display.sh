#!/bin/sh
# Runs a command that needs an X display (Qt widgets, VTK rendering).
# With DISPLAY set, runs it as is; otherwise under a private Xvfb server (Mesa llvmpipe).
# Usage: scripts/with-display.sh COMMAND [ARGS...]
set -e
if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi
if [ -n "${DISPLAY:-}" ]; then
  exec "$@"
fi
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "$0: DISPLAY is not set and xvfb-run is not installed (apt-get install xvfb xauth)" >&2
  exit 1
fi
exec xvfb-run -a -s "-screen 0 1280x800x24" "$@"
