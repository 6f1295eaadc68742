#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Where stderr goes decides what the diverted fd 1 is (issue 12).
#
# - stderr a regular file (2>>server.log): fd 1 must still be something a
#   program accepts as its stdout (asyncio's pipe transport refuses a
#   regular file), and the startup output must reach the file, all of it.
# - stderr a pipe nobody reads while the server runs: the server must never
#   block on the diversion for good: once stderr has taken nothing for 5 s
#   (stall.h), what does not fit is dropped and counted.
# - stderr a pipe read slowly: nothing is lost; the server waits for it.
# Each over pipes and over sockets (as Node-based clients give).

bats_require_minimum_version 1.5.0
load ../helpers

setup() {
    SRV=$BIN/setups_srv
    PYSRV=$FIX/setups_asyncio.py
    ANSWER=$(answer 0 initialize)
}

# --- stderr a regular file

@test "stderr a regular file: the asyncio pipe transport starts; banner in the log, the answer on the wire" {
    for sockets in "" --sockets; do
        JUNK=("asyncio-banner: server starting")
        both $sockets --stderr-file --line "$INIT" -- "$PYTHON" "$PYSRV"
        assert_status 0
        assert_junk_on_stderr
        assert_frames "$ANSWER"
        # the diverted stdout was never a regular file
        assert_stderr_lacks "ValueError"
    done
}

@test "stderr a regular file: a C server that wants a pipe for stdout starts; all 200 KiB of its junk in the log, in order" {
    for sockets in "" --sockets; do
        JUNK=("setups-junk 00000000" "setups-junk 00003199")
        both $sockets --stderr-file --line "$INIT" -- "$SRV" 204800 pipe-only
        assert_status 0
        assert_junk_on_stderr
        assert_frames "$ANSWER"
        # nothing lost: exactly what the server wrote, in its order
        "$BIN/setups_srv" 204800 </dev/null >"$BATS_TEST_TMPDIR/want"
        cmp "$BATS_TEST_TMPDIR/want" "$ERR" || { show_run; false; }
    done
}

@test "stderr a log file opened for appending (2>>): earlier lines kept, the junk appended before the server is gone" {
    cd "$BATS_TEST_TMPDIR"   # (server.log and out, not in the source tree)
    printf 'earlier line\n' >server.log
    printf '%s\n' "$INIT" | timeout 20 "$STDIOGATE_WRAPPER" "$PYTHON" "$PYSRV" 2>>server.log | cat >out
    [ "$(cat out)" = "$ANSWER" ]
    [ "$(head -1 server.log)" = "earlier line" ]
    grep -qx "asyncio-banner: server starting" server.log
    printf '%s\n' "$INIT" | timeout 20 "$STDIOGATE_WRAPPER" "$SRV" 100 pipe-only 2>>server.log | cat >out
    [ "$(cat out)" = "$ANSWER" ]
    grep -q "^setups-junk 00000001" server.log
}

@test "stderr a regular file: a server that exits before reading anything has its junk in the log when it is gone" {
    gated --stderr-file --frames 0 -- sh -c "$SRV 70000 </dev/null"
    assert_status 0
    assert_frames
    [ "$(wc -c <"$ERR")" -eq 70000 ] || { show_run; false; }
}

@test "stderr a regular file: the gate opens only once the junk written before it is in the log (order kept)" {
    for sockets in "" --sockets; do
        gated $sockets --stderr-file --line "$INIT" -- "$SRV" 1048576 mark-after
        assert_status 0
        assert_frames "$ANSWER"
        # the server's own stderr line after its answer comes after every junk line
        [ "$(tail -n 1 "$ERR")" = "setups-after-first-answer" ] || { tail -n 3 "$ERR"; false; }
        [ "$(grep -c '^setups-junk' "$ERR")" -eq 16384 ]
    done
}

# --- stderr a pipe, the helper held back

# Opening the gate, an exec and a spawn that hand the wire on wait (at most
# 2 s) until the junk written before them has reached stderr, so that the
# stderr lines written after them come after the junk.  The helper is
# stopped before the server writes any junk and is continued only at the
# library's level-3 line that says it is waiting for it: without the wait,
# the server would answer, exec or spawn, and the line after it reach
# stderr while the junk was still in the pipe (the client continues the
# helper at that line too, so that such a run ends).  A log file makes the
# library start its helper at once, before the server writes anything
# (without one it starts at the first junk line, and would take some of
# the junk before the client could stop it).
held_back() {  # held_back MARK SERVER-ARGS...: unwrapped, then wrapped with the helper stopped
    local mark=$1 sockets last_junk after
    shift
    for sockets in "" --sockets; do
        JUNK=("setups-junk 00000000" "setups-junk 00000099")
        ungated $sockets --line "$INIT" -- "$SRV" 6400 "$@"
        assert_status 0
        assert_stdout_has "$ANSWER" "${JUNK[@]}"
        assert_stderr_has "$mark"

        STDIOGATE_LOG="$BATS_TEST_TMPDIR/junk.log" STDIOGATE_DEBUG=3 gated $sockets --stop-helper "waiting for the helper" \
            --stop-helper "$mark" --line "$INIT" -- "$SRV" 6400 "$@"
        assert_status 0
        assert_frames "$ANSWER"
        assert_junk_on_stderr
        assert_gate_opened_by read "$INIT_BYTES"
        assert_no_failsafe
        [ "$(grep -c '^setups-junk' "$ERR")" -eq 100 ] || { show_run; false; }
        # the line written after the gate, the exec or the spawn comes after every junk line
        last_junk=$(grep -n '^setups-junk 00000099' "$ERR" | cut -d: -f1)
        after=$(grep -nxF -- "$mark" "$ERR" | cut -d: -f1)
        [ -n "$last_junk" ] && [ -n "$after" ] && [ "$last_junk" -lt "$after" ] ||
            { echo "last junk line $last_junk, the line after it $after" >&2; show_run; false; }
        # the wait said what it waited for: all 100 lines, none taken yet
        assert_stderr_has "waiting for the helper to pass on 6400 bytes of startup output to stderr"
    done
}

@test "stderr a pipe, the helper held back: the gate opens only once the junk written before it has reached stderr (order kept)" {
    held_back setups-after-first-answer poll-first
}

@test "stderr a pipe, the helper held back: an exec hands the wire on only once the junk written before it has reached stderr" {
    # shellcheck disable=SC2016
    held_back setups-after-exec exec-after sh -c 'echo setups-after-exec >&2; exec "$0" 0' "$SRV"
}

@test "stderr a pipe, the helper held back: posix_spawn hands the wire on only once the junk written before it has reached stderr" {
    held_back setups-after-spawn spawn-after sh -c 'echo setups-after-spawn >&2'
}

# --- stderr a pipe that nobody reads

@test "stderr a pipe nobody reads: a server printing 1 MiB before its first read answers; the loss is counted" {
    for sockets in "" --sockets; do
        JUNK=("setups-junk 00000000")
        # the server waits once for the stall verdict (5 s): well within 30 s
        both $sockets --stderr-late --timeout 30 --line "$INIT" -- "$SRV" 1048576
        assert_status 0
        assert_frames "$ANSWER"
        assert_stderr_has "setups-junk 00000000"
        grep -Eq '^stdiogate\[[0-9]+\]: [0-9]+ bytes of startup output were dropped: stderr was full' "$ERR" ||
            { show_run; false; }
        # what reached stderr and what was dropped add up to what was written
        dropped=$(sed -n 's/^stdiogate\[[0-9]*\]: \([0-9]*\) bytes of startup output were dropped.*/\1/p' "$ERR")
        kept=$(grep -v '^stdiogate\[' "$ERR" | wc -c)
        [ "$dropped" -gt 0 ]
        [ $((kept + dropped)) -eq 1048576 ] || { echo "kept $kept bytes, dropped $dropped"; show_run; false; }
    done
}

@test "stderr a pipe read late: a server printing less than the drain holds loses nothing" {
    JUNK=("setups-junk 00000000" "setups-junk 00000999")
    both --stderr-late --line "$INIT" -- "$SRV" 64000
    assert_status 0
    assert_frames "$ANSWER"
    assert_junk_on_stderr
    [ "$(grep -c '^setups-junk' "$ERR")" -eq 1000 ] || { show_run; false; }
    assert_stderr_lacks "dropped"
}

# --- stderr a pipe read slowly (a live reader behind the server)

# Reads stdin 1 KiB at a time with a pause between reads: slower than the
# server writes, so the drain finds stderr full again and again.
SLOW_READER='
import os, sys, time
while True:
    b = os.read(0, 1024)
    if not b:
        break
    os.write(1, b)
    time.sleep(0.0002)
'

@test "stderr a pipe read slowly: 16 MiB of startup output all reach stderr, byte-exact; nothing dropped" {
    n=16777216
    # unwrapped, all of it is on stdout
    "$SRV" $n </dev/null >"$BATS_TEST_TMPDIR/want"
    [ "$(wc -c <"$BATS_TEST_TMPDIR/want")" -eq $n ]
    printf '%s\n' "$INIT" | {
        timeout 120 "$STDIOGATE_WRAPPER" "$SRV" $n 2>&1 >"$BATS_TEST_TMPDIR/out" |
            timeout 120 "$PYTHON" -c "$SLOW_READER" >"$BATS_TEST_TMPDIR/err"
    }
    [ "$(cat "$BATS_TEST_TMPDIR/out")" = "$ANSWER" ] || { head -c 300 "$BATS_TEST_TMPDIR/out"; false; }
    if grep -a 'dropped' "$BATS_TEST_TMPDIR/err"; then false; fi
    cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/err"
}
