#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 42: a launcher that hands its stdio to a service
# outside the process tree with sendmsg(SCM_RIGHTS), as `flatpak-spawn
# --host` (over D-Bus) and `systemd-run --pipe` (over a unix socket) do.
# Neither is available here; tests/fixtures/tree_fdpass.c plays both
# sides: a service the test starts (its own session, no library) and the
# launcher, the server command.  The service writes a banner on the stdout
# it was given, then the answers.  Unwrapped, the banner and the answers
# arrive on stdout.  Wrapped, the service gets the wire (as a program the
# library cannot enter does): the answers arrive; the banner is on the wire
# too, as unwrapped (nothing of ours runs in the service: LIMITS.md).

load ../helpers

setup() {
    tree_setup
    SERVICE_PIDS="$BATS_TEST_TMPDIR/service-pids"
    SOCK="$BATS_TEST_TMPDIR/service.sock"
    : >"$SERVICE_PIDS"
    [ -x "$BIN/tree_fdpass" ] || { echo "missing $BIN/tree_fdpass (make fixtures)" >&2; return 1; }
}

teardown() { kill_listed "${SERVICE_PIDS:-}"; }

# start_service: the service listens on $SOCK when this returns; its pid
# is appended to $SERVICE_PIDS.
start_service() {
    "$BIN/tree_fdpass" service "$SOCK" "$BATS_TEST_TMPDIR/service-pid" \
        </dev/null >>"$BATS_TEST_TMPDIR/service.log" 2>&1 3>&- ||
        { echo "the service did not start" >&2; cat "$BATS_TEST_TMPDIR/service.log" >&2; return 1; }
    cat "$BATS_TEST_TMPDIR/service-pid" >>"$SERVICE_PIDS"
}

# fdpass_case WHEN: the launcher passes its stdio before the gate (before:
# it never reads stdin, as flatpak-spawn) or after it (after: it read the
# first message and sends it along).
fdpass_case() {
    expect_frames fdpass
    { echo JUNK-service-banner; cat "$EXPECTED"; } >"$BATS_TEST_TMPDIR/wrapped"
    { echo JUNK-launcher; cat "$BATS_TEST_TMPDIR/wrapped"; } >"$BATS_TEST_TMPDIR/plain"
    start_service
    tree_run_plain "$BIN/tree_fdpass" launch "$SOCK" "$1"
    assert_status 0
    cmp "$BATS_TEST_TMPDIR/plain" "$OUT" || { echo "unwrapped: stdout is not the junk and the frames"; false; }
    start_service
    STDIOGATE_DEBUG=2 tree_run "$BIN/tree_fdpass" launch "$SOCK" "$1"
    assert_status 0
    # The launcher's own junk is kept off the wire; the service's banner is
    # not (it writes on the wire itself, unguarded, as it would unwrapped).
    cmp "$BATS_TEST_TMPDIR/wrapped" "$OUT" || { echo "wrapped: stdout is not the banner and the frames"; false; }
    assert_stderr_has JUNK-launcher
    assert_stderr_lacks JUNK-service-banner
}

@test "tree/fdpass: a launcher sends its stdin and stdout to a service before the gate (flatpak-spawn --host): the answers arrive" {
    fdpass_case before
    assert_stderr_has "sendmsg: stdout passed to another process: it gets the wire"
}

@test "tree/fdpass: a launcher reads the first message, then sends it with its stdin and stdout to a service: the answers arrive" {
    fdpass_case after
    assert_stderr_has "sendmsg: the wire passed to another process"
}

# A server that hands a copy of its stdout to a helper over a socket before
# the gate and then serves itself: the helper got the wire, and the
# server's own stdout still becomes the wire at the client's first message.
@test "tree/fdpass: a launcher sends a copy of its stdout to a service before the gate, then serves its stdin itself: the answers arrive" {
    fdpass_case share
    assert_stderr_has "sendmsg: stdout passed to another process: it gets the wire"
}

@test "tree/fdpass: the same over AF_UNIX sockets (a Node client's stdio): the answers arrive" {
    TREE_CLIENT_OPTS=(--socket)
    fdpass_case before
}

@test "tree/fdpass: under --strict the service gets the filter's pipe: its banner is kept off the wire too" {
    expect_frames fdpass
    start_service
    mcp_session "$STDIOGATE" --strict "$BIN/tree_fdpass" launch "$SOCK" before
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-launcher JUNK-service-banner
}

@test "tree/fdpass: stdin, stdout and 70 copies of stderr in one message (control data larger than the library's stack copy): the answers arrive" {
    fdpass_case wide
}

# (coverage round of 2026-12-07: a control message other than SCM_RIGHTS
# before it was never sent.)  The launcher's credentials first, then its
# stdin and stdout, before the gate: the service still gets the wire.
@test "tree/fdpass: SCM_CREDENTIALS before the descriptors in one message: the service still gets the wire, the answers arrive" {
    fdpass_case creds
    assert_stderr_has "sendmsg: stdout passed to another process: it gets the wire"
}
