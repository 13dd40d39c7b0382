#!/usr/bin/env bash
# The packages as a user gets them. Builds them (cpack) from a build folder; installs the
# trainbench package with apt and checks the installed programs (the desktop entry and AppStream
# metadata validate, the manual pages and completion load, `doctor`, a one-epoch synthetic
# training, the window coming up offscreen, nothing looked for in the build tree); removes it
# and checks that nothing of it is left; then the same with trainbench-cuda beside it (doctor
# finds the installed plugin and, without a GPU, says why it cannot be used); and unpacks the
# tarball elsewhere and runs it from there. As root (apt). Usage: installers/install-test.sh [build]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build/ci}")
work=$(mktemp -d)
trap 'rm -rf "$work"; dpkg -s trainbench-cuda >/dev/null 2>&1 && apt-get remove -y -q --purge trainbench-cuda >/dev/null; dpkg -s trainbench >/dev/null 2>&1 && apt-get remove -y -q --purge trainbench >/dev/null; true' EXIT
fail() { echo "install test: FAIL: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive HOME=$work/home QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR=$work/run
mkdir -p "$HOME" && mkdir -m 0700 "$XDG_RUNTIME_DIR"

(cd "$build" && cpack -B "$work/packages" >/dev/null) || fail "cpack could not build the packages"
app=$(ls "$work"/packages/trainbench_*.deb)
cuda=$(ls "$work"/packages/trainbench-cuda_*.deb 2>/dev/null || true)
tarball=$(ls "$work"/packages/trainbench-*.tar.gz)
echo "packages: $(cd "$work/packages" && ls *.deb *.tar.gz | tr '\n' ' ')"
echo "trainbench depends on: $(dpkg-deb -f "$app" Depends)"

# The installed programs work from their installed places only.
check_programs() {
  local bin=$1
  "$bin/trainbench-cli" doctor > "$work/doctor.txt" || fail "doctor failed"
  "$bin/trainbench-cli" train --no-db --quiet --json --set dataset=shapes \
    --set data.synthetic_samples=256 --set data.image_size=16 --set model=lenet5 \
    --set max_epochs=1 --set checkpoint_dir="$work/ckpt" | tail -1 > "$work/train.json" ||
    fail "a one-epoch training failed"
  grep -q '"status":"completed"' "$work/train.json" || fail "training did not complete: $(cat "$work/train.json")"
  rm -f "$work/window.png"
  "$bin/trainbench" --db "$work/runs.db" --screenshot "$work/window.png" || fail "the window did not come up"
  [[ -s $work/window.png ]] || fail "the window wrote no screenshot"
}

# installed_files PACKAGE: its files (not folders), as dpkg lists them.
installed_files() {
  dpkg -L "$1" | while read -r f; do [[ -f $f || -L $f ]] && echo "$f"; done
}

# removed PACKAGE FILES...: purges it and checks each file went.
removed() {
  local package=$1
  shift
  apt-get remove -y -q --purge "$package" >/dev/null
  for f in "$@"; do
    [[ -e $f || -L $f ]] && fail "$f is left after removing $package"
  done
  [[ ! -d /usr/lib/trainbench || $package == trainbench-cuda ]] || fail "/usr/lib/trainbench is left"
  echo "removed $package: none of its $# files is left"
}

echo "== trainbench"
apt-get install -y -q "$app" >/dev/null || fail "apt could not install $app"
mapfile -t files < <(installed_files trainbench)
for f in /usr/bin/trainbench /usr/bin/trainbench-cli /usr/lib/trainbench/libtrainbench_engine.so.* \
    /usr/share/applications/*.desktop /usr/share/metainfo/*.metainfo.xml \
    /usr/share/icons/hicolor/scalable/apps/*.svg /usr/share/icons/hicolor/48x48/apps/*.png \
    /usr/share/man/man1/trainbench-cli.1.gz /usr/share/man/man1/trainbench.1.gz \
    /usr/share/bash-completion/completions/trainbench-cli; do
  [[ -e $f ]] || fail "$f is not installed"
done
for f in /usr/bin/trainbench /usr/bin/trainbench-cli; do
  rpath=$(readelf -d "$f" | sed -n 's/.*\(RUNPATH\|RPATH\).*\[\(.*\)\]/\2/p')
  [[ $rpath == '$ORIGIN/../lib/trainbench' ]] || fail "$f has RUNPATH '$rpath'"
done
desktop-file-validate /usr/share/applications/*.desktop || fail "desktop-file-validate refused the desktop entry"
appstreamcli validate --no-net /usr/share/metainfo/*.metainfo.xml >/dev/null ||
  fail "appstreamcli refused the metainfo: $(appstreamcli validate --no-net /usr/share/metainfo/*.metainfo.xml)"
grep -q '^\.SH CONFIGURATION KEYS' <(zcat /usr/share/man/man1/trainbench-cli.1.gz) || fail "the man page lacks its keys"
bash -c 'source /usr/share/bash-completion/completions/trainbench-cli && complete -p trainbench-cli' \
  >/dev/null || fail "the bash completion does not load"
check_programs /usr/bin
echo "installed: ${#files[@]} files; doctor, a one-epoch run and the window work"
removed trainbench "${files[@]}"

if [[ -n $cuda ]]; then
  echo "== trainbench-cuda"
  apt-get install -y -q "$app" "$cuda" >/dev/null || fail "apt could not install $cuda beside $app"
  mapfile -t plugin_files < <(installed_files trainbench-cuda)
  [[ -f /usr/lib/trainbench/libtrainbench_cuda.so ]] || fail "the plugin is not installed"
  doctor=$(/usr/bin/trainbench-cli doctor --json)
  path=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["cuda"]["pluginPath"])' <<< "$doctor")
  [[ $path == /usr/lib/trainbench/libtrainbench_cuda.so ]] || fail "doctor found the plugin at '$path'"
  python3 -c 'import json,sys; c=json.load(sys.stdin)["cuda"]; sys.exit(0 if c["usable"] or c["reason"] else 1)' \
    <<< "$doctor" || fail "doctor neither uses the GPU nor says why not"
  echo "plugin: $(python3 -c 'import json,sys; c=json.load(sys.stdin)["cuda"]; print("usable" if c["usable"] else "not usable: " + c["reason"])' <<< "$doctor")"
  check_programs /usr/bin
  removed trainbench-cuda "${plugin_files[@]}"
  mapfile -t files < <(installed_files trainbench)
  removed trainbench "${files[@]}"
fi

echo "== the tarball, unpacked elsewhere"
mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked"
root=$(ls -d "$work"/unpacked/*/)
check_programs "$root/bin"
echo "install test: OK"
