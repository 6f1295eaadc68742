#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Debian package built by `make deb` (in $DEB_DIR): its layout, the packaged
# wrapper and library running the noisy example server clean from a `dpkg -x`
# root, then one real `dpkg -i` / `dpkg -r` round trip.  Not part of `make
# test` (it needs dpkg-dev, debhelper and lintian): `make deb` runs it.

bats_require_minimum_version 1.5.0

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
ANSWER='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"noisy-server","version":"1.0"}}}'

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export VERSION="$(sed -n 's/^version=//p' "$REPO/stdiogate")"
    export MA="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
    export DEB="$DEB_DIR/stdiogate_${VERSION}_$(dpkg-architecture -qDEB_HOST_ARCH).deb"
    export SERVER="$REPO/examples/bin/noisy-server"
}

setup() {
    [ -f "$DEB" ] || { echo "no $DEB: run 'make deb'" >&2; return 1; }
    cd "$BATS_TEST_TMPDIR"
}

# to_eof COMMAND...: its stdout in out and its stderr in err, each read to its
# end: under --strict the filter, a child of the server, may write after the
# server has exited, so waiting for the process is not enough.
to_eof() {
    { "$@" 2>&1 >&3 3>&- | cat >err; } 3>&1 | cat >out
}

# serve WRAPPER...: the example server under WRAPPER, given one initialize: the
# answer alone on stdout, the startup chatter on stderr.
serve() {
    printf '%s\n' "$INIT" | to_eof timeout 20 "$@" "$SERVER"
    [ "$(cat out)" = "$ANSWER" ] || { echo "stdout:"; cat out; echo "stderr:"; cat err; return 1; }
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
}

@test "deb: wrapper in /usr/bin, library under /usr/lib/MULTIARCH/stdiogate, man page, completion" {
    dpkg -c "$DEB" >list
    grep -q ' \./usr/bin/stdiogate$' list
    grep -q " \./usr/lib/$MA/stdiogate/libstdiogate\.so$" list
    grep -q ' \./usr/share/man/man1/stdiogate\.1\.gz$' list
    grep -q ' \./usr/share/bash-completion/completions/stdiogate$' list
    [ "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" ]
    dpkg -x "$DEB" root
    grep -qx "configured_libdir=/usr/lib/$MA/stdiogate" root/usr/bin/stdiogate
    [ "$(root/usr/bin/stdiogate --version)" = "stdiogate $VERSION" ]
}

@test "deb: the packaged wrapper and library, from a dpkg -x root, run a noisy server clean (also --strict, --check)" {
    dpkg -x "$DEB" root
    # The wrapper looks in ../lib/stdiogate beside its own location before the
    # configured /usr/lib/MULTIARCH/stdiogate: point that at the packaged library.
    ln -s "$MA/stdiogate" root/usr/lib/stdiogate
    serve "$PWD/root/usr/bin/stdiogate"
    serve "$PWD/root/usr/bin/stdiogate" --strict
    grep -q '^Loaded 1 tool: echo' err
    run -1 timeout 60 "$PWD/root/usr/bin/stdiogate" --check --linger 0 -- "$SERVER"
    [[ "$output" == *"run 2, default mode:"*"stdout: protocol only, 3 messages"* ]]
    [[ "$output" == *"run 3, --strict:"*"stdout: protocol only, 3 messages"* ]]
    serve "$PWD/root/usr/bin/stdiogate" -v
    # (the wrapper names the library by the directory it found it in)
    grep -Eq "preloading $PWD/root/usr/lib/($MA/)?stdiogate/libstdiogate.so" err
    # Unwrapped, the same server puts its banner on stdout (so the test can fail).
    printf '%s\n' "$INIT" | timeout 20 "$SERVER" >plain 2>/dev/null
    grep -q '^Starting noisy-server' plain
}

@test "deb: dpkg -i, the installed stdiogate runs a noisy server clean, dpkg -r removes it" {
    ! dpkg -s stdiogate >/dev/null 2>&1 || { echo "stdiogate is installed already: not touching it"; return 1; }
    dpkg -i "$DEB"
    serve /usr/bin/stdiogate -v
    grep -q "preloading /usr/lib/$MA/stdiogate/libstdiogate.so" err
    man -w stdiogate | grep -q '^/usr/share/man/man1/stdiogate\.1\.gz$'
    dpkg -r stdiogate
    [ ! -e /usr/bin/stdiogate ]
    [ ! -e "/usr/lib/$MA/stdiogate" ]
}
