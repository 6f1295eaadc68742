#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The fail-safe's hold (lib/failsafe.c, "The hold") at its decision points, which the
# mutation check (tests/mutate.sh) found unpinned: bytes that may begin an
# answer are held, and whatever is still held when the gate opens by a read,
# at exit, at _exit is junk and goes to stderr then, not later and not never.
# A Python server writes the start of a candidate ('{"partial', no newline)
# to stdout before it has read anything, then ends in one of those ways;
# stdout and stderr are read through pipes to their end of file.

bats_require_minimum_version 1.5.0

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export PYTHON=${PYTHON:-python3}
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}'
ANSWER='{"jsonrpc":"2.0","id":0,"result":{}}'

# wrapped PYTHON-CODE: the server under stdiogate, the client's first
# message on its stdin; stdout in "out", stderr in "err"
wrapped() {
    ( printf '%s\n' "$INIT" | "$REPO/stdiogate" "$PYTHON" -c "$1" 2>&1 >&3 3>&- | cat >err ) 3>&1 |
        cat >out
}

PARTIAL='import os, sys
os.write(1, b"{\"partial")
'

@test "hold: what is held when the gate opens (by a read) goes to stderr then (the server killed after)" {
    wrapped "$PARTIAL"'
sys.stdin.readline()
os.write(1, b"'"${ANSWER//\"/\\\"}"'\n")
os.kill(os.getpid(), 9)'
    cat err >&2
    [ "$(cat out)" = "$ANSWER" ]
    grep -q '{"partial' err
}

@test "hold: what is held at _exit goes to stderr" {
    wrapped "$PARTIAL"'
os._exit(0)'
    cat err >&2
    [ ! -s out ]
    grep -q '{"partial' err
}

@test "hold: what is held at exit goes to stderr" {
    wrapped "$PARTIAL"'
sys.exit(0)'
    cat err >&2
    [ ! -s out ]
    grep -q '{"partial' err
}

@test "hold: a message with a result but no id, written before anything was read, is no answer: it does not open the gate" {
    wrapped 'import os, sys
os.write(1, b"{\"jsonrpc\":\"2.0\",\"result\":\"early\"}\n")
sys.stdin.readline()
os.write(1, b"'"${ANSWER//\"/\\\"}"'\n")'
    cat err >&2
    [ "$(cat out)" = "$ANSWER" ]
    grep -q '"result":"early"' err
}
