#!/usr/bin/env bash
# The installed tool, as a user gets it: build the wheel, install it (not editable) with the locked
# requirements into a throw-away venv, and in an empty directory run a one-benchmark, one-type
# build, a verify and WebShop's graphs; `import flows` (a room's folder name) must not import.
# Run by `make test` (CI); prints the time it took. Usage: scripts/check_install.sh [PYTHON]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
work="$(mktemp -d -t miscue-install-XXXXXX)"
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
"$python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$work/wheel" "$root"
rm -rf "$root/build"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
    -r "$root/requirements.lock" -r "$root/requirements-flows.lock" "$work"/wheel/miscue-*.whl
mkdir "$work/empty" && cd "$work/empty"
if "$work/venv/bin/python" -c "import flows" 2>/dev/null; then echo "check-install: 'import flows' works: a room is installed at the top level" >&2; exit 1; fi
"$work/venv/bin/miscue" build --benchmark tau2-airline --fault-type factual_error --quiet > build.txt
grep -q "published v0001" build.txt
"$work/venv/bin/miscue" verify-corpus latest
"$work/venv/bin/miscue" verify "I need to cancel a reservation" -b tau2-airline --task 7 > verify.txt || test $? -eq 1
"$work/venv/bin/miscue" graphs --benchmark webshop --quiet > graphs.txt
echo "check-install: the wheel installs and runs in an empty directory ($(( $(date +%s) - started )) s)"
