#!/usr/bin/env bash
# `pip install --no-build-isolation .` as the README says it, offline: the sources as a fresh clone has them (the
# tracked files, with their edits: git stash create) are copied to a temporary folder and installed into a new
# venv (--system-site-packages: Debian's setuptools, wheel and pandas). The copy is then deleted, and from
# another folder `import stasim` must run a step on the configs the package ships (the packaged trn3 is renamed
# to tell them from any other), report the version `stasim --version` prints and raise ValueError on bad input.
# Usage: pip_install_test.sh SOURCE_DIR BUILD_DIR PYTHON
# PYTHON is the interpreter CMake found; when it lacks venv, setuptools or wheel, Debian's /usr/bin/python3 (the
# python3 of the README's commands on Debian) is used.
set -euo pipefail
src=$1
build=$2
binary=$build/stasim
python=$3
# Inside the build folder: below the same CCACHE_BASEDIR as the build itself, so ccache reuses its objects.
work=$(mktemp -d "$build/pip-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "pip install test FAILED: $*" >&2; exit 1; }

usable() { "$1" -c 'import venv, setuptools, wheel' 2>/dev/null; }
if ! usable "$python"; then
  usable /usr/bin/python3 || fail "neither $python nor /usr/bin/python3 has venv, setuptools and wheel (Debian: python3-venv python3-setuptools python3-wheel)"
  python=/usr/bin/python3
fi

# The tracked files with their working-tree edits (a fresh clone of what would be committed).
snapshot=$(git -C "$src" stash create)
mkdir "$work/src"
git -C "$src" archive "${snapshot:-HEAD}" | tar -x -C "$work/src"
sed -i 's/^name: trn3$/name: trn3-packaged/' "$work/src/configs/hw/trn3.yaml"

# ccache shares objects between builds only when the paths it sees are the same: relative to CCACHE_BASEDIR
# (when unset, the work folder: later runs reuse this one's objects).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$work}
"$python" -m venv --system-site-packages "$work/venv" || fail "python3 -m venv"
start=$(date +%s)
(cd "$work/src" && PIP_NO_INDEX=1 "$work/venv/bin/pip" install --no-build-isolation . >"$work/pip.log" 2>&1) ||
  { tail -n 40 "$work/pip.log" >&2; fail "pip install --no-build-isolation ."; }
echo "pip install: $(( $(date +%s) - start )) s"
rm -rf "$work/src"

mkdir "$work/elsewhere"
cd "$work/elsewhere"
expected_version=$("$binary" --version | sed -n 's/^stasim \([0-9.]*\) .*/\1/p')
env -u STASIM_DATA_DIR -u PYTHONPATH "$work/venv/bin/python" - "$expected_version" <<'PY' || fail "import stasim from the venv"
import os, sys
import stasim

expected_version = sys.argv[1]
assert os.path.dirname(stasim.__file__).startswith(sys.prefix), stasim.__file__  # the installed package
assert stasim.__version__ == expected_version, (stasim.__version__, expected_version)
step = stasim.run(hw="trn3", layers=1)
assert step["hardware"] == "trn3-packaged", step["hardware"]  # the package's own configs
assert step["provenance"]["configs"]["hardware"]["name"] == "trn3"
rows = stasim.sweep(config="qwen3-30b-a3b-dr-k256", layers=1, d=[8], r=[384], hw="trn3")
assert [r["status"] for r in rows] == ["ok", "ok"], rows
try:
    stasim.run(model="no-such-model")
    raise AssertionError("no ValueError")
except ValueError as e:
    assert "no model 'no-such-model'" in str(e), e
print("pip install test: ok")
PY
