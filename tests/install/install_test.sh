#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed binary run from another folder: it finds the
# configs installed beside it (not the source tree's: the installed trn3 is renamed to tell them apart), keeps
# finding them when the prefix is moved, honours STASIM_DATA_DIR, and the installed plot script draws. With the
# Python module built, the installed package is imported from the prefix (PYTHONPATH) and reads the prefix's
# configs, moved or not. Finally a configure with -DBUILD_TESTING=OFF has no test targets.
# Usage: install_test.sh SOURCE_DIR BUILD_DIR [PYTHON PYTHON_INSTALL_DIR]
set -euo pipefail
src=$1
build=$2
python=${3:-}
python_dir=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install test FAILED: $*" >&2; exit 1; }

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log" >&2; fail "cmake --install"; }
for f in bin/stasim bin/stasim-plot share/stasim/configs/hw/trn3.yaml share/stasim/configs/hw/trn3-calibrated.yaml \
         share/stasim/configs/models/qwen3-30b-a3b.yaml share/stasim/configs/reference/published.yaml \
         share/stasim/configs/sweeps/qwen3-30b-a3b-dr-k256.yaml share/stasim/configs/schedules/expert_ffn_tile.yaml \
         share/doc/stasim/README.md share/doc/stasim/architecture.md share/doc/stasim/hardware-model.md; do
  [ -e "$prefix/$f" ] || fail "the prefix has no $f"
done
sed -i 's/^name: trn3$/name: trn3-installed/' "$prefix/share/stasim/configs/hw/trn3.yaml"
# The Python package from the prefix: its version, and a run on the prefix's configs (found from the module).
import_installed() {
  [ -n "$python" ] || return 0
  PYTHONPATH="$1/$python_dir" "$python" -c '
import os, sys, stasim
assert stasim.__file__.startswith(sys.argv[1]), stasim.__file__
step = stasim.run(hw="trn3", layers=1)
assert step["hardware"] == "trn3-installed", step["hardware"]
print(stasim.__version__)' "$1" >"$work/python.txt" 2>&1 || fail "import stasim from $1/$python_dir: $(cat "$work/python.txt")"
  grep -qx "$("$1/bin/stasim" --version | sed -n 's/^stasim \([0-9.]*\) .*/\1/p')" "$work/python.txt" ||
    fail "the installed module's version: $(cat "$work/python.txt")"
}
if [ -n "$python" ]; then
  [ -e "$prefix/$python_dir/stasim/__init__.py" ] || fail "the prefix has no $python_dir/stasim/__init__.py"
  ls "$prefix/$python_dir/stasim/"_stasim*.so >/dev/null 2>&1 || fail "the prefix has no $python_dir/stasim/_stasim*.so"
fi

mkdir "$work/elsewhere"
cd "$work/elsewhere"
import_installed "$prefix"
"$prefix/bin/stasim" --version >version.txt
grep -qx "configs: $prefix/share/stasim/configs" version.txt || fail "--version: $(cat version.txt)"
"$prefix/bin/stasim" run --hw trn3 --layers 1 --quiet --json r.json
grep -q '"hardware": "trn3-installed"' r.json || fail "run --hw trn3 did not read the installed trn3"
# Shipped names and shipped relative paths both resolve in the install.
"$prefix/bin/stasim" schedule --quiet --schedule configs/schedules/expert_ffn_tile.yaml --json s.json
grep -q '"hardware": "trn3-installed"' s.json || fail "schedule did not read the installed configs/hw/trn3.yaml"

# A moved prefix still finds its configs (they are found from the binary's own location).
mv "$prefix" "$work/moved"
import_installed "$work/moved"
"$work/moved/bin/stasim" --version | grep -qx "configs: $work/moved/share/stasim/configs" || fail "moved prefix"
"$work/moved/bin/stasim" run --hw trn3-calibrated --layers 1 --quiet --json r2.json
grep -q '"hardware": "trn3-calibrated"' r2.json || fail "the calibrated overlay from the moved prefix"
# An overlay in the user's folder naming its base by shipped name.
printf 'base: trn3\nname: my-trn3\ncore:\n  semaphore_ns: 80\n' >mine.yaml
"$work/moved/bin/stasim" run --hw mine.yaml --layers 1 --quiet --dump-config dumped.yaml
grep -q 'semaphore_ns: 80' dumped.yaml || fail "the overlay's value in --dump-config"

# STASIM_DATA_DIR wins, and a wrong one is bad input (exit 2).
STASIM_DATA_DIR=$src "$work/moved/bin/stasim" run --hw trn3 --layers 1 --quiet --json r3.json
grep -q '"hardware": "trn3"' r3.json || fail "STASIM_DATA_DIR=$src was not used"
set +e
STASIM_DATA_DIR=$work/nothing "$work/moved/bin/stasim" run --layers 1 --quiet >bad.txt 2>&1
code=$?
set -e
[ "$code" -eq 2 ] || fail "a STASIM_DATA_DIR without configs/ exited $code, not 2"
grep -q "STASIM_DATA_DIR=$work/nothing: no configs/ folder there" bad.txt || fail "message: $(cat bad.txt)"

# The installed plot script.
"$work/moved/bin/stasim" compare --layers 1 --quiet --json c.json
"$work/moved/bin/stasim-plot" engines c.json --out engines.png >/dev/null
[ -s engines.png ] || fail "stasim-plot wrote no picture"

# Tests are optional: a configure without them has no test target.
cmake -S "$src" -B "$work/notests" -DBUILD_TESTING=OFF >"$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; fail "configure"; }
cmake --build "$work/notests" --target help | grep -q "cli_tests" && fail "BUILD_TESTING=OFF still defines cli_tests"
echo "install test: ok"
