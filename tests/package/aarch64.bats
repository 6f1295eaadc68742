#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The aarch64 packages (make packages: cross-built by Debian's cross compiler)
# under qemu-user (qemu-aarch64-static, -L /usr/aarch64-linux-gnu for the
# loader and libc), with the example server cross-built too.
#
# This machine has no binfmt_misc, so the kernel cannot start an aarch64
# program by itself: each one is started by a small sh script, put where the
# program was, that execs qemu-aarch64-static on it (qemu is static, so the
# host loader never sees LD_PRELOAD, which qemu passes on to the emulated
# loader).  The chain is then the one a user's: the installed x86 wrapper
# (sh, the same script on every machine) runs the aarch64 stdiogate-check,
# which gives it the environment with the aarch64 library in LD_PRELOAD, and
# execs the server (or the aarch64 stdiogate-filter, which starts it).
# What this covers: the aarch64 library's gate in an aarch64 server, the
# aarch64 filter, the aarch64 checker (--wrapper, --environment and --check
# playing the client), laid out by uv (the wheel) and npm (the tarballs).
# What it cannot: programs the server starts run natively (x86: its
# system() helper), so they are not guarded here and the host loader says on
# stderr that it cannot preload the aarch64 library; qemu-user cannot start
# the library's drain helper (see exercise below), so the default gate's
# startup output going to stderr is not seen; and the aarch64 kernel
# interface is qemu's translation of this one.

bats_require_minimum_version 1.5.0

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
ANSWER='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"noisy-server","version":"1.0"}}}'
QEMU=qemu-aarch64-static
SYSROOT=/usr/aarch64-linux-gnu

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export VERSION="$(sed -n 's/^version=//p' "$REPO/stdiogate")"
    local out="${PKG_OUT_DIR:-$REPO/build/pkg/out}"
    export WHEEL="$(ls "$out"/stdiogate-"$VERSION"-py3-none-manylinux_*_aarch64.whl 2>/dev/null)"
    export NPM_MAIN="$out/stdiogate-$VERSION.tgz" NPM_ARM64="$out/stdiogate-linux-arm64-$VERSION.tgz"
    export UV_BIN="$REPO/build/sdk/py/venv/bin"
    local missing=
    for f in "$WHEEL" "$NPM_MAIN" "$NPM_ARM64" "$REPO/build/pkg/aarch64/noisy-server"; do
        [ -f "$f" ] || missing=1
    done
    if [ -n "$missing" ] || ! command -v "$QEMU" >/dev/null || [ ! -x "$UV_BIN/uv" ]; then
        echo "run 'make packages pkg-aarch64-server sdk-python' first" >&2
        return 1
    fi
    # The server, started through qemu by a script of the same name.
    local t="$BATS_FILE_TMPDIR"
    mkdir -p "$t/srv"
    cp "$REPO/build/pkg/aarch64/noisy-server" "$t/srv/noisy-server.aarch64"
    emulated "$t/srv/noisy-server"
    export SERVER="$t/srv/noisy-server"
    # The wheel, laid out by uv as for an aarch64 machine (pip takes another
    # machine's wheel only with --target, which drops its data).
    "$UV_BIN/uv" pip install -q --no-config --offline --no-index --cache-dir "$t/uv-cache" \
        --python "$UV_BIN/python" --python-platform aarch64-manylinux_2_34 --prefix "$t/wheel" "$WHEEL"
    # The npm tarballs, installed by npm (--force: this machine is x64).
    npm install -g --offline --force --prefix "$t/npm" --cache "$t/npm-cache" \
        --registry http://127.0.0.1:9/ --no-audit --no-fund "$NPM_MAIN" "$NPM_ARM64" >"$t/npm.log" 2>&1 ||
        { cat "$t/npm.log" >&2; return 1; }
    local lib
    for lib in "$t/wheel/lib/stdiogate" "$t/npm/lib/node_modules/@stdiogate/linux-arm64/lib/stdiogate"; do
        emulated "$lib/stdiogate-check"
        emulated "$lib/stdiogate-filter"
    done
}

# emulated PROGRAM: PROGRAM.aarch64 (moved there if need be) started by the
# script PROGRAM through qemu.
emulated() {
    [ -e "$1.aarch64" ] || mv "$1" "$1.aarch64"
    printf '#!/bin/sh\nexec %s -L %s "$0.aarch64" "$@"\n' "$QEMU" "$SYSROOT" >"$1"
    chmod 755 "$1"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
    printf '%s\n' "$ANSWER" >expected
}

# to_eof COMMAND...: its stdout in out and its stderr in err, each read to its
# end: under --strict the filter, a child of the server, may write after the
# server has exited, so waiting for the process is not enough.
to_eof() {
    { "$@" 2>&1 >&3 3>&- | cat >err; } 3>&1 | cat >out
}

# serve STDIOGATE [OPTION]...: the aarch64 server under it, given one
# initialize: the answer alone, byte-exact, on stdout.
serve() {
    printf '%s\n' "$INIT" | to_eof timeout 60 "$@" "$SERVER"
    cmp expected out || { echo "stdout:"; cat out; echo "stderr:"; cat err; return 1; }
}

# exercise STDIOGATE: the default gate, --strict, --check and --version.
exercise() {
    [ "$("$1" --version)" = "stdiogate $VERSION" ]
    # The default gate: the aarch64 library ran in the server and opened the
    # gate on its read.  (Its startup output goes to /dev/null here: qemu-user
    # refuses the clone without an exit signal that starts the library's
    # drain helper, EINVAL, and the library falls back to /dev/null, as
    # documented; on aarch64 hardware it goes to stderr.)
    serve "$1" -vv
    grep -q "preloading .*/lib/stdiogate/libstdiogate.so" err
    grep -q "libstdiogate.so version $VERSION" err
    grep -q "gate opened by fgets after" err
    # --strict: the aarch64 filter passes the answer and sends the rest to stderr.
    serve "$1" --strict
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
    grep -q '^Loaded 1 tool: echo' err
    run -1 timeout 120 "$1" --check --linger 0 --timeout 30 -- "$SERVER"
    [[ "$output" == *"run 1, unwrapped: $SERVER"*"non-protocol output"* ]]
    [[ "$output" == *"run 2, default mode:"*"stdout: protocol only, 3 messages"* ]]
    [[ "$output" == *"run 3, --strict:"*"stdout: protocol only, 3 messages"* ]]
}

@test "aarch64: the packaged binaries are aarch64, and the wheel is tagged for their newest GLIBC_x.y" {
    local lib="$BATS_FILE_TMPDIR/wheel/lib/stdiogate" f newest
    for f in libstdiogate.so stdiogate-check.aarch64 stdiogate-filter.aarch64; do
        readelf -h "$lib/$f" | grep -Eq 'Machine:[[:space:]]+AArch64'
    done
    newest=$(readelf --version-info -W "$lib/libstdiogate.so" "$lib/stdiogate-check.aarch64" |
        grep -o 'Name: GLIBC_[0-9.]*' | sed 's/.*_//' | sort -V | tail -n 1)
    # (2.31 at least: the oldest glibc the project supports, README's Limits)
    newest=$(printf '%s\n2.31\n' "$newest" | sort -V | tail -n 1)
    [ "${WHEEL##*/}" = "stdiogate-$VERSION-py3-none-manylinux_${newest%%.*}_${newest#*.}_aarch64.whl" ]
    cmp "$lib/libstdiogate.so" "$BATS_FILE_TMPDIR/npm/lib/node_modules/@stdiogate/linux-arm64/lib/stdiogate/libstdiogate.so"
}

@test "aarch64: unwrapped, the server under qemu puts its chatter on stdout (so the tests below can fail)" {
    printf '%s\n' "$INIT" | timeout 60 "$SERVER" >plain 2>/dev/null
    grep -q '^Starting noisy-server 1.0 in stdio mode' plain
    grep -qxF "$ANSWER" plain
}

@test "aarch64: the filter alone (--protocol auto) passes the answer only" {
    printf '%s\n' "$INIT" | to_eof timeout 60 "$BATS_FILE_TMPDIR/wheel/lib/stdiogate/stdiogate-filter" \
        --protocol auto -- "$SERVER"
    cmp expected out
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
}

@test "aarch64: the wheel's stdiogate (as uv lays it out): default gate, --strict, --check, --version" {
    exercise "$BATS_FILE_TMPDIR/wheel/bin/stdiogate"
}

@test "aarch64: the npm packages' stdiogate (npm install -g): default gate, --strict, --check, --version" {
    # The launcher picks the platform package by uname -m: here, one that says aarch64.
    mkdir machine
    printf '#!/bin/sh\necho aarch64\n' >machine/uname
    chmod 755 machine/uname
    PATH="$PWD/machine:$PATH" exercise "$BATS_FILE_TMPDIR/npm/bin/stdiogate"
    # (on this x86_64 machine, as it is, the launcher finds no linux-x64 package)
    run -125 "$BATS_FILE_TMPDIR/npm/bin/stdiogate" --version
}
