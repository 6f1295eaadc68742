#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The wheel and the npm packages (make packages, build/pkg/out), installed as
# users install them, offline: pip into a fresh venv, uv tool install and uvx
# (pip and uv from make sdk-python), npm install -g and npx of the tarballs, and
# npm install -g / npx -y from a registry on 127.0.0.1 (tests/package/
# registry.py), where npm itself picks the platform package.  Each installed
# stdiogate runs the noisy example server: the answer alone and byte-exact on
# stdout, the chatter on stderr; --strict; --check; --version.  The x86_64
# files here; the aarch64 ones under qemu in tests/package/aarch64.bats.  The .deb:
# built and passed by lintian here (make deb-build), installed and run by
# tests/package/deb.bats (make deb).

bats_require_minimum_version 1.5.0

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
ANSWER='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"noisy-server","version":"1.0"}}}'

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export VERSION="$(sed -n 's/^version=//p' "$REPO/stdiogate")"
    # (make release points PKG_OUT_DIR at its own files)
    export OUT_DIR="${PKG_OUT_DIR:-$REPO/build/pkg/out}"
    export WHEEL="$(ls "$OUT_DIR"/stdiogate-"$VERSION"-py3-none-manylinux_*_x86_64.whl 2>/dev/null)"
    export NPM_MAIN="$OUT_DIR/stdiogate-$VERSION.tgz"
    export NPM_X64="$OUT_DIR/stdiogate-linux-x64-$VERSION.tgz"
    export NPM_ARM64="$OUT_DIR/stdiogate-linux-arm64-$VERSION.tgz"
    export UV_BIN="$REPO/build/sdk/py/venv/bin"
    # The example server, away from the build tree.
    mkdir -p "$BATS_FILE_TMPDIR/srv"
    cp "$REPO/examples/bin/noisy-server" "$BATS_FILE_TMPDIR/srv/"
    export SERVER="$BATS_FILE_TMPDIR/srv/noisy-server"
}

setup() {
    for f in "$WHEEL" "$NPM_MAIN" "$NPM_X64" "$NPM_ARM64"; do
        [ -f "$f" ] || { echo "no ${f:-x86_64 wheel} in $OUT_DIR: run 'make packages'" >&2; return 1; }
    done
    cd "$BATS_TEST_TMPDIR"
    # Nothing may reach a registry but the one a test starts.
    export npm_config_registry=http://127.0.0.1:9/ npm_config_cache="$BATS_TEST_TMPDIR/npm-cache"
    export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
    export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
}

teardown() {
    [ -z "${REGISTRY_PID:-}" ] || kill "$REGISTRY_PID" 2>/dev/null || true
}

# to_eof COMMAND...: its stdout in out and its stderr in err, each read to its
# end: under --strict the filter, a child of the server, may write after the
# server has exited, so waiting for the process is not enough.
to_eof() {
    { "$@" 2>&1 >&3 3>&- | cat >err; } 3>&1 | cat >out
}

# serve STDIOGATE [OPTION]...: the example server under it, given one
# initialize: the answer alone, byte for byte, on stdout, the startup chatter
# on stderr.
serve() {
    printf '%s\n' "$INIT" | to_eof timeout 30 "$@" "$SERVER"
    printf '%s\n' "$ANSWER" >expected
    cmp expected out || { echo "stdout:"; cat out; echo "stderr:"; cat err; return 1; }
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
}

# exercise STDIOGATE: what a user of the installed command sees.
exercise() {
    [ "$("$1" --version)" = "stdiogate $VERSION" ]
    serve "$1"
    serve "$1" --strict
    grep -q '^Loaded 1 tool' err
    # Every launcher execs: the command runs in the process started as stdiogate.
    "$1" sh -c 'echo $$ >pid.txt' </dev/null &
    wait $!
    [ "$(cat pid.txt)" = "$!" ]
    run -1 timeout 60 "$1" --check --linger 0 -- "$SERVER"
    [[ "$output" == *"run 1, unwrapped: $SERVER"*"non-protocol output"* ]]
    [[ "$output" == *"run 2, default mode:"*"stdout: protocol only, 3 messages"* ]]
    [[ "$output" == *"run 3, --strict:"*"stdout: protocol only, 3 messages"* ]]
}

# registry: serves the npm tarballs on 127.0.0.1 (synchronised on the port it prints).
registry() {
    mkfifo port.fifo
    python3 "$REPO/tests/package/registry.py" "$NPM_MAIN" "$NPM_X64" "$NPM_ARM64" \
        >port.fifo 3>&- &
    REGISTRY_PID=$!
    read -r port <port.fifo
    [ -n "$port" ]
    export npm_config_registry="http://127.0.0.1:$port/"
}

@test "unwrapped, the example server puts its chatter on stdout (so the tests below can fail)" {
    printf '%s\n' "$INIT" | timeout 30 "$SERVER" >plain 2>/dev/null
    grep -q '^Starting noisy-server 1.0 in stdio mode' plain
    grep -qxF "$ANSWER" plain
}

@test "wheel: what make install installs, bin/ as scripts, the rest as data, tagged for the newest glibc its binaries need (2.31 at least)" {
    make -s -C "$REPO" install DESTDIR="$PWD/stage" PREFIX=/usr >make.log 2>&1
    (cd stage/usr && find . -type f | sed 's|^\./||' |
        sed -e "s|^bin/|stdiogate-$VERSION.data/scripts/|" -e "t" -e "s|^|stdiogate-$VERSION.data/data/|") |
        sort >expected
    python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$WHEEL" |
        grep -v "^stdiogate-$VERSION.dist-info/" | sort >actual
    diff expected actual
    # The tag: the newest GLIBC_x.y of its library and checker (the filter is static).
    mkdir bin
    python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); z.extractall("bin", [n for n in z.namelist() if "/lib/stdiogate/stdiogate-" in n or n.endswith(".so")])' "$WHEEL"
    newest=$(find bin -type f -exec readelf --version-info -W {} + |
        grep -o 'Name: GLIBC_[0-9.]*' | sed 's/.*_//' | sort -V | tail -n 1)
    [ -n "$newest" ]
    # (2.31 at least: the oldest glibc the project supports, README's Limits)
    newest=$(printf '%s\n2.31\n' "$newest" | sort -V | tail -n 1)
    [ "${WHEEL##*/}" = "stdiogate-$VERSION-py3-none-manylinux_${newest%%.*}_${newest#*.}_x86_64.whl" ]
    # The wrapper is the script itself, relocatable; no Python module, no entry point.
    python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); sys.stdout.buffer.write(z.read(sys.argv[2]))' \
        "$WHEEL" "stdiogate-$VERSION.data/scripts/stdiogate" >script
    head -n 1 script | grep -qx '#!/bin/sh'
    grep -qx 'configured_libdir=' script
    diff <(grep -v '^configured_libdir=' "$REPO/stdiogate") <(grep -v '^configured_libdir=' script)
}

@test "wheel: pip install into a fresh venv puts stdiogate on PATH, and it works as after make install" {
    # (the pip of make sdk-python, told which venv: ensurepip would triple the time)
    [ -x "$UV_BIN/pip" ] || { echo "no pip in $UV_BIN: run 'make sdk-python'" >&2; return 1; }
    python3 -m venv --without-pip venv
    "$UV_BIN/pip" --python venv/bin/python install -q "$WHEEL"
    [ -x venv/bin/stdiogate ] && [ -f venv/lib/stdiogate/libstdiogate.so ]
    PATH="$PWD/venv/bin:$PATH" exercise stdiogate
    # The library it preloads is the venv's.
    PATH="$PWD/venv/bin:$PATH" stdiogate sh -c 'env >env.txt' </dev/null
    grep -qx "LD_PRELOAD=$PWD/venv/lib/stdiogate/libstdiogate.so" env.txt
    "$UV_BIN/pip" --python venv/bin/python uninstall -q -y stdiogate
    [ ! -e venv/bin/stdiogate ] && [ ! -e venv/lib/stdiogate/libstdiogate.so ]
}

@test "wheel: uv tool install (offline) puts stdiogate on PATH; uvx --from the wheel runs it" {
    [ -x "$UV_BIN/uv" ] || { echo "no uv in $UV_BIN: run 'make sdk-python'" >&2; return 1; }
    export UV_TOOL_DIR="$PWD/tools" UV_TOOL_BIN_DIR="$PWD/bin"
    uvflags=(--no-config --offline --no-index --cache-dir "$PWD/uv-cache" --python "$UV_BIN/python"
             --no-python-downloads)
    "$UV_BIN/uv" tool install -q "${uvflags[@]}" "$WHEEL"
    PATH="$PWD/bin:$PATH" exercise stdiogate
    printf '%s\n' "$INIT" | to_eof timeout 60 "$UV_BIN/uvx" -q "${uvflags[@]}" --from "$WHEEL" \
        stdiogate "$SERVER"
    cmp expected out
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
    [ "$("$UV_BIN/uvx" -q "${uvflags[@]}" --from "$WHEEL" stdiogate --version)" = "stdiogate $VERSION" ]
}

@test "npm: npm install -g of the tarballs into a prefix (offline): stdiogate works" {
    npm install -g --offline --prefix "$PWD/g" "$NPM_MAIN" "$NPM_X64" >npm.log 2>&1 || { cat npm.log; return 1; }
    [ -x g/lib/node_modules/@stdiogate/linux-x64/lib/stdiogate/stdiogate-filter ]
    exercise "$PWD/g/bin/stdiogate"
    PATH="$PWD/g/bin:$PATH" serve stdiogate -v
    grep -q "preloading $PWD/g/lib/node_modules/@stdiogate/linux-x64/lib/stdiogate/libstdiogate.so" err
}

@test "npm: npx of the tarballs (offline) runs stdiogate" {
    printf '%s\n' "$INIT" | to_eof timeout 60 npx -y --offline --package "$NPM_MAIN" --package "$NPM_X64" -- \
        stdiogate "$SERVER"
    printf '%s\n' "$ANSWER" | cmp - out
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
    [ "$(npx -y --offline --package "$NPM_MAIN" --package "$NPM_X64" -- stdiogate --version)" = "stdiogate $VERSION" ]
}

@test "npm: from a registry, npm install -g stdiogate nests the linux-x64 package (not arm64) and works" {
    registry
    npm install -g --prefix "$PWD/g" stdiogate >npm.log 2>&1 || { cat npm.log; return 1; }
    [ -d g/lib/node_modules/stdiogate/node_modules/@stdiogate/linux-x64 ]
    [ ! -e g/lib/node_modules/stdiogate/node_modules/@stdiogate/linux-arm64 ]
    exercise "$PWD/g/bin/stdiogate"
}

@test "npm: from a registry, npx -y stdiogate SERVER runs it clean" {
    registry
    printf '%s\n' "$INIT" | to_eof timeout 60 npx -y stdiogate "$SERVER"
    printf '%s\n' "$ANSWER" | cmp - out
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
    run -1 timeout 60 npx -y stdiogate --check --linger 0 -- "$SERVER"
    [[ "$output" == *"run 2, default mode:"*"stdout: protocol only, 3 messages"* ]]
}

@test "npm: the launcher finds the platform package nested, beside, or in a node_modules higher up, through a bin symlink" {
    # MAIN-PACKAGE:PLATFORM-PACKAGE, each laid out from its tarball
    for layout in n/node_modules/stdiogate:n/node_modules/stdiogate/node_modules/@stdiogate/linux-x64 \
                  b/node_modules/stdiogate:b/node_modules/@stdiogate/linux-x64 \
                  u/node_modules/a/node_modules/stdiogate:u/node_modules/@stdiogate/linux-x64; do
        main=${layout%%:*} platform=${layout#*:}
        mkdir -p "$main" "$platform" "${main%%/*}/bin"
        tar -xzf "$NPM_MAIN" -C "$main" --strip-components=1
        tar -xzf "$NPM_X64" -C "$platform" --strip-components=1
        ln -s "$PWD/$main/bin/stdiogate" "${main%%/*}/bin/stdiogate"
        serve "${main%%/*}/bin/stdiogate" -v
        grep -q "preloading $PWD/$platform/lib/stdiogate/libstdiogate.so" err
    done
}

@test "npm: without its platform package, stdiogate says what is missing and how to install it, and exits 125" {
    mkdir -p u && tar -xzf "$NPM_MAIN" -C u
    run -125 --separate-stderr u/package/bin/stdiogate --version
    [ -z "$output" ]
    [[ "$stderr" == *"the package @stdiogate/linux-x64 (stdiogate's programs for this machine) is not installed beside $PWD/u/package"* ]]
    [[ "$stderr" == *"npm install -g @stdiogate/linux-x64@$VERSION "* ]]
    # npm install -g of the main package alone (the platform package nowhere to be had): npm
    # succeeds without it, and stdiogate then says it is missing (issue 44)
    npm install -g --offline --prefix "$PWD/g" "$NPM_MAIN" >npm.log 2>&1 || { cat npm.log; return 1; }
    [ ! -e g/lib/node_modules/stdiogate/node_modules/@stdiogate/linux-x64 ]
    run -125 --separate-stderr g/bin/stdiogate --version
    [ -z "$output" ]
    [[ "$stderr" == *"the package @stdiogate/linux-x64 (stdiogate's programs for this machine) is not installed"* ]]
    [[ "$stderr" == *"npm install -g @stdiogate/linux-x64@$VERSION "* ]]
    # what it says to do works
    npm install -g --offline --prefix "$PWD/g" "$NPM_X64" >npm.log 2>&1 || { cat npm.log; return 1; }
    [ "$(g/bin/stdiogate --version)" = "stdiogate $VERSION" ]
}

@test "npm: npm install -g puts the man page where man finds it (PREFIX/share/man/man1) (issue 44)" {
    npm install -g --offline --prefix "$PWD/g" "$NPM_MAIN" "$NPM_X64" >npm.log 2>&1 || { cat npm.log; return 1; }
    [ -f g/share/man/man1/stdiogate.1 ]
    cmp g/share/man/man1/stdiogate.1 "$REPO/stdiogate.1"
    grep -q '^\.TH STDIOGATE 1' g/share/man/man1/stdiogate.1
    if command -v man >/dev/null; then
        # (a link into the package, which man follows)
        [ "$(realpath "$(MANPATH="$PWD/g/share/man" man -w stdiogate)")" = "$(realpath g/share/man/man1/stdiogate.1)" ]
    fi
}

@test "wheel and npm tarballs: packed again from their own files, with other dates on disk, the same bytes; SOURCE_DATE_EPOCH dates the entries" {
    # The wheel's files back where make install put them, dated otherwise.
    python3 - "$WHEEL" wheel <<'PY'
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for info in z.infolist():
    parts = info.filename.split("/")
    if not parts[0].endswith(".data"):
        continue
    name = os.path.join(sys.argv[2], "usr", *(["bin"] if parts[1] == "scripts" else []), *parts[2:])
    os.makedirs(os.path.dirname(name), exist_ok=True)
    with open(name, "wb") as f:
        f.write(z.read(info))
    os.chmod(name, (info.external_attr >> 16) & 0o777)
PY
    mkdir npm && tar -xzf "$NPM_X64" -C npm
    rm npm/package/package.json npm/package/README.md npm/package/LICENSE
    find wheel npm -exec touch -d @1000000000 {} +
    # The date make packages gave them (SOURCE_DATE_EPOCH or the last commit's).
    epoch=$(python3 -c 'import sys, tarfile; print(tarfile.open(sys.argv[1]).getmembers()[0].mtime)' "$NPM_MAIN")
    SOURCE_DATE_EPOCH=$epoch python3 "$REPO/pkg/pack.py" wheel wheel/usr "$VERSION" again >/dev/null
    SOURCE_DATE_EPOCH=$epoch python3 "$REPO/pkg/pack.py" npm-platform npm/package "$VERSION" again >/dev/null
    SOURCE_DATE_EPOCH=$epoch python3 "$REPO/pkg/pack.py" npm-main "$VERSION" again >/dev/null
    cmp "$WHEEL" "again/${WHEEL##*/}"
    cmp "$NPM_X64" "again/${NPM_X64##*/}"
    cmp "$NPM_MAIN" "again/${NPM_MAIN##*/}"
    SOURCE_DATE_EPOCH=1700000000 python3 "$REPO/pkg/pack.py" npm-main "$VERSION" later >/dev/null
    ! cmp -s "$NPM_MAIN" "later/${NPM_MAIN##*/}" || false
    [ "$(tar -tvzf "later/${NPM_MAIN##*/}" package/LICENSE | awk '{print $4}')" = 2023-11-14 ]
}

@test "make packages again under another date (a commit since, or SOURCE_DATE_EPOCH): every package bears it, not only those whose other inputs changed; then nothing is made again" {
    git -C "$REPO" ls-files -z -co --exclude-standard | (cd "$REPO" && tar --null -T - -cf -) |
        { mkdir tree && tar -xf - -C tree; }
    SOURCE_DATE_EPOCH=1700000000 make -C tree -s packages >make.log 2>&1 || { cat make.log >&2; false; }
    touch tree/README.md    # an input of the wheels and the npm launcher, not of the npm binaries
    SOURCE_DATE_EPOCH=1700003600 make -C tree -s packages >make.log 2>&1 || { cat make.log >&2; false; }
    python3 - tree/build/pkg/out 1700003600 <<'PY'
import glob, sys, tarfile, time, zipfile
out, epoch = sys.argv[1], int(sys.argv[2])
files = glob.glob(out + "/*.tgz") + glob.glob(out + "/*.whl")
assert len(files) == 5, files
for f in files:
    if f.endswith(".whl"):
        dates = {i.date_time for i in zipfile.ZipFile(f).infolist()}
        want = {time.gmtime(epoch)[:6]}
    else:
        dates = {m.mtime for m in tarfile.open(f).getmembers()}
        want = {epoch}
    assert dates == want, (f, dates, want)
PY
    # the same date: no command runs (make's own lines aside; the cross-built stage was kept)
    SOURCE_DATE_EPOCH=1700003600 make -C tree packages >again.log 2>&1
    [ -z "$(grep -v '^make' again.log)" ] || { cat again.log >&2; false; }
}

@test "deb: the Debian package builds from the release tarball and lintian passes it, as make deb and make release build it (issue 44)" {
    make -s -C "$REPO" deb-build DEB_DIR="$PWD/deb" >deb.log 2>&1 || { tail -n 40 deb.log; false; }
    ls deb/stdiogate_"$VERSION"_*.deb
    # lintian sees the static programs (the check and the filter): they pass only by the
    # overrides, each with its reason (debian/stdiogate.lintian-overrides)
    lintian --show-overrides --tags statically-linked-binary deb/stdiogate_"$VERSION"_*.deb >tags.txt 2>&1 || true
    for program in stdiogate-check stdiogate-filter; do
        grep -q "^O: stdiogate: statically-linked-binary \[usr/lib/[^/]*/stdiogate/$program\]" tags.txt ||
            { echo "no override shown for $program"; cat tags.txt; false; }
    done
    dpkg-deb -c deb/stdiogate_"$VERSION"_*.deb | grep -q '/usr/share/lintian/overrides/stdiogate$'
}

@test "README: its install lines for the files of a release name the files make packages builds, and install them (issue 44)" {
    # the block after its marker, as a user copies it: the wheel and the npm lines, run in
    # the directory of the files (the .deb's: make deb-build's test above)
    sed -n '/^<!-- test: not run: installs on this machine; tests\/package\/packages.bats installs the wheel/,/^```$/p' \
        "$REPO/README.md" | sed '1,2d;$d' >block.sh
    grep -q '^sudo apt install ./stdiogate_\*_amd64.deb ' block.sh
    grep -E '^(uv tool install|npm install -g) ' block.sh | sed 's/ *#.*//' >lines.sh
    [ "$(wc -l <lines.sh)" = 2 ]
    mkdir files && cp "$OUT_DIR"/* files/
    [ -x "$UV_BIN/uv" ] || { echo "no uv in $UV_BIN: run 'make sdk-python'" >&2; return 1; }
    (cd files && PATH="$UV_BIN:$PATH" UV_TOOL_DIR="$BATS_TEST_TMPDIR/tools" UV_TOOL_BIN_DIR="$BATS_TEST_TMPDIR/bin" \
        UV_NO_CONFIG=1 UV_OFFLINE=1 UV_NO_INDEX=1 UV_CACHE_DIR="$BATS_TEST_TMPDIR/uv-cache" \
        UV_PYTHON="$UV_BIN/python" UV_PYTHON_DOWNLOADS=never npm_config_offline=true \
        npm_config_prefix="$BATS_TEST_TMPDIR/g" sh -ex ../lines.sh) >install.log 2>&1 || { cat install.log; false; }
    [ "$(bin/stdiogate --version)" = "stdiogate $VERSION" ]
    [ "$(g/bin/stdiogate --version)" = "stdiogate $VERSION" ]
    # the deb's glob names the file make deb builds
    [[ "stdiogate_${VERSION}_amd64.deb" == stdiogate_*_amd64.deb ]]
}
