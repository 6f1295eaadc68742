#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 22: every write path of the fail-safe.  tests/bin/fam_write reads
# stdin with raw system calls (no read path can open the gate) and writes
# its answers with one member (the first answer followed, in the same call,
# by a notification: the rest of the call goes out the member's own way,
# offset and flags included): unwrapped, its junk is on stdout with the
# answers (the test can fail); wrapped, the junk on stderr, stdout exactly
# the answers, the gate opened by that member's fail-safe (level 2: `gate
# opened by CALL: the server answered`) with the level-1 warning, and no
# byte of an answer on stderr.

load helpers

FW=$BIN/fam_write

setup() { [ -x "$FW" ] || { echo "make fixtures" >&2; return 1; }; }

# row CALL MEMBER [CLIENT-OPTION...]
row() {
    local call=$1 member=$2; shift 2
    JUNK=(fam-write-junk)
    local -x EXPECT_FAILSAFE=1
    diverted --timeout 20 --frames 3 "$@" --line "$INIT" --line "$PING" -- "$FW" "$member"
    assert_frames "$(answer 0 initialize)" '{"jsonrpc":"2.0","method":"note"}' "$(answer '"p1"' ping)"
    assert_failsafe "$call"
    assert_stderr_has "$FAILSAFE_WARNING"
    assert_stderr_lacks '"result"'
}

# table ROW...: each row "CALL MEMBER [OPTS]" in a background subshell with
# errexit in force (on the left of || it would be off); every failed row named.
table() {
    local r bad=()
    for r in "$@"; do
        # shellcheck disable=SC2086
        ( set -e; row $r ) 2>"$BATS_TEST_TMPDIR/row.err" &
        if ! wait $!; then
            bad+=("$r")
            { echo "=== row failed: $r"; cat "$BATS_TEST_TMPDIR/row.err"; } >&2
        fi
    done
    [ "${#bad[@]}" = 0 ] || { printf 'failed row: %s\n' "${bad[@]}" >&2; false; }
}

@test "families: the fail-safe in every descriptor writer (write, __write, writev, pwritev2 and pwritev64v2 at offset -1; pipes)" {
    table "write write" "__write __write" "writev writev" "pwritev2 pwritev2" "pwritev64v2 pwritev64v2"
}

@test "families: the fail-safe in every socket writer (send, __send, sendto, sendmsg; socket stdout)" {
    table "send send --sockets" "__send __send --sockets" "sendto sendto --sockets" \
        "sendmsg sendmsg --sockets" "write write --sockets" "writev writev --sockets"
}

@test "families: the fail-safe in C stdio: fflush(stdout), fflush(NULL)" {
    table "fflush fflush" "fflush fflush-null"
}

@test "families: the fail-safe at exit (answers left in stdout's buffer)" {
    table "exit exit --frames 0"
}
