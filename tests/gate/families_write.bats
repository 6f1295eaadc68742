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

load ../helpers

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

# table ROW...: each row "CALL MEMBER [OPTS]" through row (helpers.bash's
# row_table: each with errexit in force, failed rows named).
table() { row_table row "$@"; }

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

# fwrite returns the number of items written: a server that writes each
# answer as one item (fwrite(s, n, 1, stdout) != 1 is its write error) must
# get 1 from the guard after the gate too, as from glibc before it.
@test "families: the fail-safe and then the guard in fwrite of the answer as one item (fwrite(s, n, 1) returns 1)" {
    table "fflush fwrite-item"
}

@test "families: the fail-safe at exit (answers left in stdout's buffer)" {
    table "exit exit --frames 0"
}

# The positional writers (pwrite, pwrite64, pwritev, pwritev64, pwritev2 at
# an offset) need a stdout that is a regular file: stdin is a file of INIT
# and PING, stdout a file, no client.  The program writes at the offset of
# what it wrote so far, its junk included.  Unwrapped the file is junk and
# answers; wrapped, the junk is on stderr, the fail-safe of that member
# opened the gate, and the wire file holds every answer byte, in order.
# Not pinned: where they land.  The first answer goes at the wire's file
# position and the rest of that call and later calls at the program's own
# offsets, which count the diverted junk: the file gets a hole of NUL bytes
# as long as the diverted output (seen: 15 NULs after the first answer).
# Whatever the library did, a positional writer's offsets and a diversion
# cannot both be kept (found by this test; reported, not changed).
@test "families: the fail-safe in the positional writers on a regular-file stdout (pwrite, pwrite64, pwritev, pwritev64, pwritev2 at an offset)" {
    local m call bad=() d=$BATS_TEST_TMPDIR
    printf '%s\n%s\n' "$INIT" "$PING" >"$d/in"
    printf '%s\n%s\n%s\n' "$(answer 0 initialize)" '{"jsonrpc":"2.0","method":"note"}' "$(answer '"p1"' ping)" >"$d/answers"
    { printf 'fam-write-junk\n'; cat "$d/answers"; } >"$d/unwrapped"
    for m in pwrite pwrite64 pwritev pwritev64 pwritev2-at; do
        call=${m%-at}
        timeout 30 "$FW" "$m" <"$d/in" >"$d/u.out" 2>"$d/u.err" || { echo "$m: unwrapped status $?" >&2; bad+=("$m"); continue; }
        cmp -s "$d/unwrapped" "$d/u.out" || { echo "$m: unwrapped stdout is not junk and answers" >&2; bad+=("$m"); continue; }
        OUT=$d/g.out ERR=$d/g.err
        status=0
        STDIOGATE_DEBUG=2 timeout 30 "$ROOT/stdiogate" "$FW" "$m" <"$d/in" >"$OUT" 2>"$ERR" || status=$?
        RUN_COMMAND="stdiogate fam_write $m"
        # (a background subshell: errexit stays in force in it)
        (
            set -e
            assert_status 0
            assert_failsafe "$call"
            assert_stderr_has "$FAILSAFE_WARNING" fam-write-junk
            assert_stderr_lacks '"result"' '"note"'
            tr -d '\0' <"$OUT" | cmp -s "$d/answers" - || { echo "the answers are not all on the wire, in order" >&2; show_run; false; }
            ! grep -q fam-write-junk "$OUT" || { echo "junk on the wire" >&2; show_run; false; }
        ) &
        wait $! || { echo "=== row failed: $m" >&2; bad+=("$m"); }
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed rows: ${bad[*]}" >&2; false; }
}

# After the gate, a positional write (Python's os.pwrite is pwrite64) on a
# regular-file stdout whose call holds junk and an answer: the guard puts
# the answer with the program's own call at the program's offset (past the
# junk, as unwrapped), not where the file's position is
# (ind7-write-pwrite64-as-write: a plain write put it at offset 0).
@test "families: after the gate, pwrite64 (os.pwrite) of junk and an answer in one call on a regular-file stdout: the answer at the program's offset, as unwrapped" {
    cd "$BATS_TEST_TMPDIR"
    cat >pw.py <<'PY'
import os, sys
sys.stdin.readline()
ans = b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
os.pwrite(1, b"x" * 100, 0)                     # junk with no newline
n = os.pwrite(1, b"pw-junk\n" + ans, 200)
open("n", "w").write("%d\n" % n)
PY
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' >in
    local ans='{"jsonrpc":"2.0","id":1,"result":{}}' xs
    printf -v xs '%*s' 100 ''
    xs=${xs// /x}
    timeout 30 "$PYTHON" pw.py <in >u.out 2>u.err
    [ "$(cat n)" = 45 ]
    { printf '%s' "$xs"; head -c 100 /dev/zero; printf 'pw-junk\n%s\n' "$ans"; } | cmp - u.out
    timeout 30 "$ROOT/stdiogate" "$PYTHON" pw.py <in >w.out 2>w.err
    [ "$(cat n)" = 45 ]
    { head -c 208 /dev/zero; printf '%s\n' "$ans"; } | cmp - w.out || { od -c w.out | head -20 >&2; false; }
    printf '%spw-junk\n' "$xs" | cmp - w.err || { cat w.err >&2; false; }
}
