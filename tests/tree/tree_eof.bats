#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 3: no descriptor of stdiogate's outlives the server.
# A server starts a long-lived background child (stdout to /dev/null), answers
# and exits: the client must see end of file on stdout promptly, as it does
# unwrapped.  client.py --mcp closes the server's stdin after the ping answer
# and allows 10 s for end of file on stdout (exit 124 and a message if not).
# The children are killed by teardown, through the pids they wrote.

load ../helpers

setup() {
    tree_setup
    export TREE_PIDFILE="$BATS_TEST_TMPDIR/pids"
    : >"$TREE_PIDFILE"
    TREE_CLIENT_OPTS=(--eof-within 10)
}

teardown() { kill_listed "${TREE_PIDFILE:-}"; }

eof_case() {  # eof_case CMD...: both runs end with EOF on stdout within 10 s
    expect_frames tree
    tree_run_plain "$@"
    assert_status 0
    assert_frames_among_stdout
    [ -s "$TREE_PIDFILE" ] || { echo "no background child was started"; false; }
    teardown
    : >"$TREE_PIDFILE"
    tree_run "$@"
    assert_status 0
    assert_stdout_frames
    [ -s "$TREE_PIDFILE" ] || { echo "no background child was started"; false; }
    # The background child is still alive: it is not what ended the run.
    local pid
    while read -r pid; do
        kill -0 "$pid" || { echo "background child $pid is gone"; false; }
    done <"$TREE_PIDFILE"
}

@test "tree: EOF: a C server forks+execs a background sleep (stdout /dev/null) before the first message, answers, exits" {
    TREE_BEFORE=bgexec eof_case tests/bin/tree_server
}

@test "tree: EOF: a C server forks a background child without exec (stdout /dev/null) before the first message" {
    TREE_BEFORE=bgfork eof_case tests/bin/tree_server
}

@test "tree: EOF: a C server starts a classic daemon (setsid, /dev/null on 0-2, every other descriptor closed)" {
    TREE_BEFORE=daemon eof_case tests/bin/tree_server
}

@test "tree: EOF: a bash server starts 'sleep 300 >/dev/null &' before the first message" {
    TREE_BG=1 eof_case tests/fixtures/tree_server.bash
}

@test "tree: EOF: a background child started by the launcher shell before it execs the server" {
    eof_case bash -c 'sleep 300 >/dev/null & echo $! >>"$TREE_PIDFILE"; echo JUNK-bash; exec "$0"' tests/bin/tree_server
}

@test "tree: EOF: a Node server's background child (spawn, stdio ignore for stdout, detached)" {
    eof_case node -e '
const { spawn } = require("child_process");
const fs = require("fs");
const c = spawn("sleep", ["300"], { stdio: ["ignore", "ignore", "inherit"], detached: true });
c.unref();
fs.appendFileSync(process.env.TREE_PIDFILE, c.pid + "\n");
require(process.argv[1]);' "$ROOT/tests/fixtures/tree_server.js"
}

@test "tree: EOF: a C server's background sleep whose fd 1 was closed (raw system call) and reopened on /dev/null" {
    TREE_BEFORE=bgreopen eof_case tests/bin/tree_server
}
