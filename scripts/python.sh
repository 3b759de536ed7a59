#!/usr/bin/env bash
# Debian's python3 with `import linkwright` working (the module built in the build tree; nothing
# installed into the system Python). Builds the module first when it is missing or old.
#   scripts/python.sh                 an interactive Python
#   scripts/python.sh script.py ...   a script
#   scripts/python.sh -m jupyter ...  any module (e.g. a notebook, if Jupyter is installed)
#   scripts/python.sh --path          prints the PYTHONPATH (for dask-worker on other machines)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
path="$LW_BUILD/python:$LW_ROOT/app/python"
if [ "${1:-}" = "--path" ]; then
  echo "$path"
  exit 0
fi
if [ -z "${LW_NO_BUILD:-}" ]; then
  lw_install_deps >&2
  lw_configure >&2
  lw_build --target _linkwright >&2
fi
export PYTHONPATH="$path${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$@"
