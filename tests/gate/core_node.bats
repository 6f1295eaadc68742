#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: Node servers.  Fixture: tests/fixtures/core_node_server.js.
# Node picks stdout's stream type on first access (a pipe here: the
# diversion), and libuv reads stdin with read(2).

load ../helpers

NSRV=$FIX/core_node_server.js

@test "node: console.log at top level (pipes)" {
    JUNK=(node-top-junk)
    init_ping_diverted -- node "$NSRV" top
}

@test "node: console.log at top level (sockets, as Node-based clients start servers)" {
    JUNK=(node-top-junk)
    init_ping_diverted --sockets -- node "$NSRV" top
}

@test "node: console.log from a timer and a promise while stdin is still empty" {
    JUNK=(node-top-junk node-timer-junk node-promise-junk)
    init_diverted --wait-err node-async-done -- node "$NSRV" async
}

@test "node: async junk while stdin is empty, over sockets" {
    JUNK=(node-top-junk node-timer-junk node-promise-junk)
    init_diverted --sockets --wait-err node-async-done -- node "$NSRV" async
}

@test "node: the message sent one byte at a time" {
    JUNK=(node-top-junk)
    init_diverted --bytewise -- node "$NSRV" top
}

# Node has no raw read the preload cannot see (fs.readSync and process.stdin
# both go through libuv's read(2)); the invisible reader here is a child
# process (/bin/sh's read builtin) reading the first line from the shared stdin.
# Before the fail-safe (core_failsafe.bats) the answer landed on stderr; now
# the answer itself opens the gate.
@test "node: a reader the library cannot see (a child reads stdin): the answer opens the gate" {
    JUNK=(node-top-junk)
    both --line "$INIT" --frames 0 --no-close -- node "$NSRV" childread once
    STDIOGATE_DEBUG=2 gated --line "$INIT" --frames 0 --no-close -- node "$NSRV" childread once
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)"
    assert_stderr_has "the server answered"
    assert_stderr_lacks '"result"'
}

@test "node: handshake process.env.STDIOGATE_OPEN = \"1\" when a child reads stdin" {
    JUNK=(node-top-junk)
    STDIOGATE_DEBUG=2 init_ping_diverted --each -- node "$NSRV" handshake
    assert_stderr_has "gate opened by handshake"
}

@test "node: stderr a terminal: junk to /dev/null, the answer on the wire (not the terminal)" {
    cmd=$(printf '%q ' "$PYTHON" "$CLIENT" --gate --stderr-inherit --out "$OUT" --line "$INIT" --line "$PING" -- node "$NSRV" top)
    status=0
    SHELL=/bin/bash script -qec "$cmd" /dev/null </dev/null >"$BATS_TEST_TMPDIR/pty" || status=$?
    assert_status 0
    if grep -qF node-top-junk "$BATS_TEST_TMPDIR/pty"; then
        echo "junk reached the terminal:" >&2; cat -v "$BATS_TEST_TMPDIR/pty" >&2; false
    fi
    assert_stdout_lacks node-top-junk
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}
