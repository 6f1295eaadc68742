#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make install / uninstall: the installed wrapper finds the installed library
# from any directory, through PATH and through a symlink.

bats_require_minimum_version 1.5.0

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
ANSWER='{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"noisy-server","version":"1.0"}}}'

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export P="$BATS_FILE_TMPDIR/p"
    make -C "$REPO" install PREFIX="$P" DESTDIR= >"$BATS_FILE_TMPDIR/make.log" 2>&1
    # The example server, away from the build tree.
    mkdir -p "$BATS_FILE_TMPDIR/srv"
    cp "$REPO/examples/bin/noisy-server" "$BATS_FILE_TMPDIR/srv/"
    export SERVER="$BATS_FILE_TMPDIR/srv/noisy-server"
}

setup() {
    mkdir -p "$BATS_TEST_TMPDIR/elsewhere"
    cd "$BATS_TEST_TMPDIR/elsewhere"
}

# serve WRAPPER...: the example server under WRAPPER, given one initialize.
# Asserts the answer alone on stdout and the startup chatter on stderr.
serve() {
    printf '%s\n' "$INIT" | "$@" "$SERVER" >out 2>err
    [ "$(cat out)" = "$ANSWER" ] || { echo "stdout:"; cat out; echo "stderr:"; cat err; return 1; }
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
}

@test "install puts the wrapper in bin/ and the library in lib/stdiogate/, with stdiogate-check and runtime/ beside it" {
    [ -x "$P/bin/stdiogate" ]
    [ -f "$P/lib/stdiogate/libstdiogate.so" ]
    cmp "$REPO/libstdiogate.so" "$P/lib/stdiogate/libstdiogate.so"
    cmp "$REPO/stdiogate-check" "$P/lib/stdiogate/stdiogate-check"
    [ -x "$P/lib/stdiogate/stdiogate-check" ]
    [ -f "$P/lib/stdiogate/runtime/perl/Stdiogate/Unbuffered.pm" ]
    [ -f "$P/lib/stdiogate/runtime/ruby/stdiogate_unbuffered.rb" ]
    grep -qx "configured_libdir=$P/lib/stdiogate" "$P/bin/stdiogate"
}

@test "the installed wrapper, called by its path from another directory, works" {
    serve "$P/bin/stdiogate"
    "$P/bin/stdiogate" sh -c 'env >env.txt' </dev/null
    grep -qx "LD_PRELOAD=$P/lib/stdiogate/libstdiogate.so" env.txt
}

@test "the installed wrapper, found through PATH, works" {
    PATH="$P/bin:$PATH" serve stdiogate
    PATH="$P/bin:$PATH" stdiogate sh -c 'env >env.txt' </dev/null
    grep -qx "LD_PRELOAD=$P/lib/stdiogate/libstdiogate.so" env.txt
}

@test "the installed wrapper, called through a symlink in another directory, works" {
    mkdir bin
    ln -s "$P/bin/stdiogate" bin/stdiogate
    PATH="$PWD/bin:$PATH" serve stdiogate
}

@test "staged install (DESTDIR): files under DESTDIR, the staged wrapper finds its library" {
    make -C "$REPO" install DESTDIR="$PWD/stage" PREFIX=/opt/sg >make.log 2>&1
    [ -x stage/opt/sg/bin/stdiogate ]
    [ -f stage/opt/sg/lib/stdiogate/libstdiogate.so ]
    grep -qx "configured_libdir=/opt/sg/lib/stdiogate" stage/opt/sg/bin/stdiogate
    serve "$PWD/stage/opt/sg/bin/stdiogate"
}

@test "a libdir other than PREFIX/lib: found through the configured path" {
    make -C "$REPO" install PREFIX="$PWD/q" LIBDIR="$PWD/q/lib64" >make.log 2>&1
    [ -f q/lib64/stdiogate/libstdiogate.so ]
    [ ! -e q/lib ]
    serve "$PWD/q/bin/stdiogate"
}

@test "uninstall removes what install put there" {
    make -C "$REPO" install PREFIX="$PWD/u" >make.log 2>&1
    [ -x u/bin/stdiogate ]
    make -C "$REPO" uninstall PREFIX="$PWD/u" >make.log 2>&1
    [ ! -e u/bin/stdiogate ]
    [ ! -e u/lib/stdiogate ]
}

@test "a prefix with a space: make install refuses before writing anything, and says what to do" {
    run make -C "$REPO" install PREFIX="$PWD/my tools"
    [ "$status" -ne 0 ]
    [[ "$output" == *"make install: LIBDIR '$PWD/my tools/lib' has a space, a colon"*"nothing was installed"* ]]
    [[ "$output" == *"LIBDIR="* ]]
    [ ! -e "my tools" ] && [ ! -e my ]
    [ ! -e "$REPO/tools" ]
    run make -C "$REPO" install PREFIX="$PWD/p" LIBDIR="$PWD/with:colon"
    [ "$status" -ne 0 ]
    [ ! -e "$PWD/with:colon" ] && [ ! -e p ]
}

@test "a prefix with a space and LIBDIR without one: install, use (path and PATH), uninstall" {
    make -C "$REPO" install PREFIX="$PWD/my tools" LIBDIR="$PWD/sglib" >make.log 2>&1
    [ -x "my tools/bin/stdiogate" ]
    [ -f sglib/stdiogate/libstdiogate.so ]
    [ ! -e "$REPO/tools" ] && [ ! -e my ]
    serve "$PWD/my tools/bin/stdiogate"
    PATH="$PWD/my tools/bin:$PATH" serve stdiogate
    "$PWD/my tools/bin/stdiogate" sh -c 'env >env.txt' </dev/null
    grep -qx "LD_PRELOAD=$PWD/sglib/stdiogate/libstdiogate.so" env.txt
    make -C "$REPO" uninstall PREFIX="$PWD/my tools" LIBDIR="$PWD/sglib" >make.log 2>&1
    [ ! -e "my tools/bin/stdiogate" ]
    [ ! -e sglib/stdiogate ]
}

@test "uninstall removes the checker and runtime/ too" {
    make -C "$REPO" install PREFIX="$PWD/u" >make.log 2>&1
    make -C "$REPO" uninstall PREFIX="$PWD/u" >make.log 2>&1
    [ -z "$(find u -type f)" ]
    [ ! -e u/lib/stdiogate ]
}

@test "the installed stdiogate --check --config runs the installed doctor; --fix writes the installed wrapper's path" {
    [ -x "$P/lib/stdiogate/stdiogate-doctor" ]
    cmp "$REPO/doctor/stdiogate-doctor" "$P/lib/stdiogate/stdiogate-doctor"
    mkdir -p home/.cursor
    printf '{\n  "mcpServers": {\n    "noisy": {"command": "%s"}\n  }\n}\n' "$SERVER" >home/.cursor/mcp.json
    run env HOME="$PWD/home" PATH="$P/bin:$PATH" stdiogate --check --config --fix --linger 0
    [ "$status" -eq 0 ]
    [[ "$output" == *"cursor noisy: junk -> clean: fixed"* ]]
    grep -qF "\"command\": \"$P/bin/stdiogate\", \"args\": [\"$SERVER\"]" home/.cursor/mcp.json
}
