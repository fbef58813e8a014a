#!/usr/bin/env bash
# Run the unit and integration tests on another supported Python (3.12, 3.13), each in its own virtualenv
# (.venv-py<version>) built from that version's pinned set. `make test` (`make suites`) calls it beside the default
# interpreter's run; `make test-py PY=3.12` runs one version.
#
#   scripts/pythons.sh find 3.12      print a working python3.12 (exit 1 when there is none)
#   scripts/pythons.sh test 3.12 ...  build .venv-py3.12 if needed and run pytest -m "not e2e" there
#                                     (in $WORKERS xdist workers, 3 by default, by work stealing as
#                                     `make test` runs the default interpreter's)
#   scripts/pythons.sh side-by-side "3.12 3.13" ...
#                                     `test` for each version at the same time ($WORKERS workers each, 2 by
#                                     default), each into its own log, printed when all have ended; fails if any did
#
# No such interpreter on a laptop: a skip, said on stderr. With SAGEMAKER_FLEET_REQUIRE_SERVICES=1 (CI): a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION="${UV_VERSION:-0.13.8}"

find_python() {
  local version="$1" candidate
  for candidate in "python$version" "$HOME"/.pyenv/versions/"$version".*/bin/"python$version" \
      /usr/local/bin/"python$version" /usr/bin/"python$version"; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" -c "import sys; sys.exit(0 if sys.version_info[:2] == tuple(map(int, '$version'.split('.'))) else 1)" 2>/dev/null; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

case "${1:-}" in
  find)
    find_python "$2"
    ;;
  test)
    version="$2"; shift 2
    if ! python="$(find_python "$version")"; then
      if [ "${SAGEMAKER_FLEET_REQUIRE_SERVICES:-}" = "1" ]; then
        echo "no Python $version interpreter found (python$version, ~/.pyenv/versions/$version.*): CI requires it" >&2
        exit 1
      fi
      echo "SKIPPED: the tests on Python $version (no python$version found; install it or set PATH)" >&2
      exit 0
    fi
    venv=".venv-py$version"
    constraints="requirements/constraints-py$version.txt"
    stamp="$venv/.installed"
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ "$constraints" -nt "$stamp" ]; then
      [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
      "$venv/bin/uv" pip install --python "$venv/bin/python" --quiet --compile-bytecode -c "$constraints" -e ".[dev]"
      touch "$stamp"
    fi
    echo "== unit and integration tests on Python $version ($("$venv/bin/python" -V 2>&1))"
    "$venv/bin/pytest" -q -n "${WORKERS:-3}" --dist worksteal -m "not e2e" "$@"
    ;;
  side-by-side)
    # Half of each suite's time is spent waiting on sockets and sub-processes (the simulator, Airflow's CLI): two
    # suites at once on 2 cores take ~1.4x one suite's time, not 2x.
    versions="$2"; shift 2
    logs="$(mktemp -d)"
    for version in $versions; do
      # `|| rc=$?`: under set -e a failing suite would end the subshell before its exit code is written
      (rc=0; WORKERS="${WORKERS:-2}" "$0" test "$version" "$@" >"$logs/$version.log" 2>&1 || rc=$?; echo "$rc" >"$logs/$version.rc") &
    done
    wait
    status=0
    for version in $versions; do
      cat "$logs/$version.log"
      rc="$(cat "$logs/$version.rc")"
      echo "== Python $version: exit code $rc"
      [ "$rc" = "0" ] || status=1
    done
    rm -rf "$logs"
    exit "$status"
    ;;
  *)
    echo "usage: scripts/pythons.sh find VERSION | test VERSION [pytest args] | side-by-side \"VERSION ...\" [pytest args]" >&2
    exit 2
    ;;
esac
