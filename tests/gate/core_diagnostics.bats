#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: diagnostics (stderr only, "stdiogate[PID]: " prefix, levels
# 0..4), the handshake from C, the environment, and the library's exports.

load ../helpers

SRV=$BIN/core_srv

# every stdiogate line on stderr carries the server's own pid
assert_prefix_pid() {
    local pid
    pid=$(sed -n 's/^core-srv-ready pid=\([0-9]*\)$/\1/p' "$ERR")
    [ -n "$pid" ] || { echo "no pid from the fixture" >&2; show_run; return 1; }
    if grep 'stdiogate' "$ERR" | grep -v "^stdiogate\[$pid\]: " >&2; then
        echo "lines above lack the prefix stdiogate[$pid]: " >&2; show_run; return 1
    fi
}

@test "diagnostics: level 2 says when it diverts and what opened the gate after how many bytes" {
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$SRV" read write stderr-mark
    assert_status 0
    assert_frames "$(answer 0 initialize)"
    assert_stderr_has "diverting stdout to stderr" "gate opened by read after ${#INIT} bytes"
    grep -qE '^stdiogate\[[0-9]+\]: diverting stdout to stderr$' "$ERR"
    assert_prefix_pid
    # the diversion is announced before the program's own output, the
    # opening after it
    [ "$(grep -n 'diverting stdout' "$ERR" | cut -d: -f1)" -lt "$(grep -n write-junk "$ERR" | cut -d: -f1)" ]
    [ "$(grep -n 'gate opened' "$ERR" | cut -d: -f1)" -gt "$(grep -n write-junk "$ERR" | cut -d: -f1)" ]
}

# write-junk is 11 bytes, 1 line, by write(2); printf-junk (12 bytes) sits in
# C stdio's buffer and is flushed by glibc itself.  Through the helper (stderr
# a file or a pipe) the count is exact: the helper took every byte.  To
# /dev/null only what went through write is counted: "at least".
@test "diagnostics: level 2 sums up in one line what the diversion took: the helper's exact count" {
    JUNK=(write-junk printf-junk)
    STDIOGATE_DEBUG=2 diverted --line "$INIT" -- "$SRV" read write write printf stderr-mark
    assert_frames "$(answer 0 initialize)"
    [ "$(grep -c '^write-junk$' "$ERR")" -eq 2 ] || { show_run; false; }
    assert_stderr_has "]: diverted to stderr: 34 bytes in 3 lines"
    assert_stderr_lacks "at least"
    [ "$(grep -c 'diverted to' "$ERR")" -eq 1 ] || { show_run; false; }
    # it follows the gate's opening
    [ "$(grep -n 'diverted to' "$ERR" | cut -d: -f1)" -gt "$(grep -n 'gate opened' "$ERR" | cut -d: -f1)" ]
    STDIOGATE_DISCARD=1 STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$SRV" read write printf stderr-mark
    assert_frames "$(answer 0 initialize)"
    assert_stderr_has "diverted to /dev/null: at least 11 bytes in 1 line"
    grep -q "diverted to /dev/null: at least 11 bytes in 1 line\$" "$ERR"
    # one line: singular
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$SRV" read printf stderr-mark
    grep -q "]: diverted to stderr: 12 bytes in 1 line\$" "$ERR" || { show_run; false; }
    # nothing through write, to /dev/null: said so, not "at least 0 bytes in 0 lines"
    STDIOGATE_DISCARD=1 STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$SRV" read printf stderr-mark
    assert_stderr_lacks "at least 0"
    assert_stderr_has "diverted to /dev/null: nothing that went through write (C stdio's own flushes are not counted)"
}

@test "diagnostics: level 2 speaks of no descriptor or device:inode; level 3 does" {
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$SRV" read write stderr-mark
    assert_frames "$(answer 0 initialize)"
    if grep -E 'descriptor [0-9]|[0-9]+:[0-9]+' "$ERR" | grep stdiogate; then show_run; false; fi
    grep -q "^stdiogate\[[0-9]*\]: preloading .*, running $SRV\$" "$ERR" || { show_run; false; }
    STDIOGATE_DEBUG=3 gated --line "$INIT" -- "$SRV" read write stderr-mark
    assert_stderr_has "the wire is kept at descriptor " "]: the wire is device:inode "
}

# --log FILE / STDIOGATE_LOG=FILE: the helper appends what it takes to FILE,
# each line prefixed with the server's name and pid, as well as stderr;
# with --discard, FILE alone gets it.  Complete when the server has exited.
@test "log: STDIOGATE_LOG appends the startup output, each line prefixed NAME[PID]:, as well as stderr; --discard: the log only (#25)" {
    JUNK=(write-junk printf-junk)
    printf 'an earlier line\n' >"$BATS_TEST_TMPDIR/log"
    STDIOGATE_LOG=$BATS_TEST_TMPDIR/log diverted --line "$INIT" -- "$SRV" read write write printf stderr-mark
    assert_frames "$(answer 0 initialize)"
    pid=$(sed -n 's/^core-srv-ready pid=\([0-9]*\)$/\1/p' "$ERR")
    printf 'an earlier line\ncore_srv[%s]: write-junk\ncore_srv[%s]: write-junk\ncore_srv[%s]: printf-junk\n' \
        "$pid" "$pid" "$pid" >"$BATS_TEST_TMPDIR/want"
    cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/log" || { cat -A "$BATS_TEST_TMPDIR/log"; false; }
    # --discard: off stderr, in the log
    rm "$BATS_TEST_TMPDIR/log"
    STDIOGATE_DISCARD=1 STDIOGATE_DEBUG=2 STDIOGATE_LOG=$BATS_TEST_TMPDIR/log \
        gated --line "$INIT" -- "$SRV" read write printf stderr-mark
    assert_frames "$(answer 0 initialize)"
    # (discarded as asked, not dropped: no level-1 line about a full stderr)
    assert_stderr_lacks write-junk printf-junk "were dropped"
    assert_stderr_has "diverting stdout to the log" "diverted to the log: 23 bytes in 2 lines"
    pid=$(sed -n 's/^core-srv-ready pid=\([0-9]*\)$/\1/p' "$ERR")
    printf 'core_srv[%s]: write-junk\ncore_srv[%s]: printf-junk\n' "$pid" "$pid" >"$BATS_TEST_TMPDIR/want"
    cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/log" || { cat -A "$BATS_TEST_TMPDIR/log"; false; }
    # without the variable, no log and the old behaviour
    rm "$BATS_TEST_TMPDIR/log"
    STDIOGATE_DISCARD=1 STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$SRV" read write stderr-mark
    assert_stderr_has "diverting stdout to /dev/null"
    [ ! -e "$BATS_TEST_TMPDIR/log" ]
}

# The log is opened non-blocking (common/junk.h): a named pipe nobody reads
# yet (a log viewer not started) is no log, said at level 1, and never holds
# up the server: not at start (the helper), the gate (the guard's log) nor
# under --strict (the filter's).
@test "log: STDIOGATE_LOG a FIFO nobody reads: the server answers, its junk on stderr, 'cannot open the log' (default mode, --strict)" {
    mkfifo "$BATS_TEST_TMPDIR/logfifo"
    printf '#!/bin/sh\nexec "%s" --strict "$@"\n' "$ROOT/stdiogate" >"$BATS_TEST_TMPDIR/strict"
    chmod +x "$BATS_TEST_TMPDIR/strict"
    JUNK=(write-junk printf-junk post-junk)
    for wrapper in "$STDIOGATE_WRAPPER" "$BATS_TEST_TMPDIR/strict"; do
        STDIOGATE_WRAPPER=$wrapper STDIOGATE_LOG=$BATS_TEST_TMPDIR/logfifo \
            diverted --timeout 30 --line "$INIT" --line "$PING" -- "$SRV" read write printf postjunk stderr-mark
        assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
        assert_stderr_has "cannot open the log $BATS_TEST_TMPDIR/logfifo"
    done
}

# Level 0 is silence in every process of ours, the drain helper
# (stdiogate-filter --drain, which the library starts with the level it was
# given) as much as the library: the FIFO nobody reads, which both say at
# level 1, is said by neither; stderr is exactly the junk.
@test "log: STDIOGATE_LOG a FIFO nobody reads, at level 0: nothing of ours on stderr (the helper is given the level), exactly the junk" {
    mkfifo "$BATS_TEST_TMPDIR/logfifo"
    JUNK=(write-junk printf-junk post-junk)
    STDIOGATE_DEBUG=0 STDIOGATE_LOG=$BATS_TEST_TMPDIR/logfifo \
        diverted --timeout 30 --line "$INIT" --line "$PING" -- "$SRV" read write printf postjunk
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_stderr_bytes $'write-junk\nprintf-junk\npost-junk\n'
}

# A log that cannot be opened (its directory missing) is named once, by the
# wrapper, not by each process that would have written it; and what is kept
# off the wire then goes to stderr, with --discard too: with no log it would
# be lost.
@test "log: a --log in a missing directory, with --discard: one warning, the junk on stderr (default mode, --strict)" {
    printf '#!/bin/sh\nexec "%s" --strict "$@"\n' "$ROOT/stdiogate" >"$BATS_TEST_TMPDIR/strict"
    chmod +x "$BATS_TEST_TMPDIR/strict"
    JUNK=(write-junk system-junk post-junk)
    local wrapper
    for wrapper in "$STDIOGATE_WRAPPER" "$BATS_TEST_TMPDIR/strict"; do
        STDIOGATE_WRAPPER=$wrapper STDIOGATE_DISCARD=1 STDIOGATE_LOG=$BATS_TEST_TMPDIR/none/x.log STDIOGATE_DEBUG=1 \
            diverted --line "$INIT" --line "$PING" -- "$SRV" read write system postjunk
        assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
        [ "$(grep -c '^stdiogate\[' "$ERR")" = 1 ] || { show_run; return 1; }
        grep -qxE "stdiogate\[[0-9]+\]: cannot open the log $BATS_TEST_TMPDIR/none/x.log: No such file or directory: what is kept off the wire goes to stderr instead" "$ERR" || { show_run; return 1; }
        [ ! -e "$BATS_TEST_TMPDIR/none" ]
    done
}

@test "diagnostics: level 2 with --discard semantics says /dev/null" {
    STDIOGATE_DISCARD=1 STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$SRV" read write stderr-mark
    assert_status 0
    assert_frames "$(answer 0 initialize)"
    assert_stderr_has "diverting stdout to /dev/null"
    assert_stderr_lacks write-junk
    assert_prefix_pid
}

@test "diagnostics: level 0 is silent, even when the wire cannot be put back" {
    STDIOGATE_DEBUG=0 gated --line "$INIT" -- "$SRV" read printf write stderr-mark
    assert_status 0
    assert_frames "$(answer 0 initialize)"
    assert_stderr_lacks stdiogate
    STDIOGATE_DEBUG=0 gated --line "$INIT" --frames 0 --no-close -- "$SRV" read write rawclose
    assert_status 1
    assert_stderr_lacks stdiogate
    assert_frames
}

@test "diagnostics: the default level (1) says nothing on a good run" {
    unset STDIOGATE_DEBUG
    gated --line "$INIT" --line "$PING" -- "$SRV" fgets printf write system forkexec
    assert_status 0
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_stderr_lacks stdiogate
}

@test "diagnostics: levels 3 and 4 put nothing on stdout, every line prefixed" {
    for level in 3 4; do
        STDIOGATE_DEBUG=$level gated --line "$INIT" --line "$PING" -- "$SRV" getline printf write stderr-mark
        assert_status 0
        assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
        assert_stderr_has "gate opened by __getdelim"
        assert_prefix_pid
        # a valid level, taken without a word by any process
        assert_stderr_lacks "is not a level"
    done
}

# Level 3: decisions and descriptor moves, once per event.  Level 4 adds a
# per-call trace: each read of stdin and each write to the diversion.
@test "diagnostics: level 3 traces events, level 4 adds every read of stdin and write to the diversion" {
    local three=(
        "the wire is kept at descriptor "
        "libstdiogate.so version "
    ) four=(
        "read: $((${#INIT} + 1)) bytes from stdin"
        "write: 11 bytes to the diversion"
    )
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$SRV" read write stderr-mark
    assert_frames "$(answer 0 initialize)"
    assert_stderr_lacks "${three[@]}" "${four[@]}"
    STDIOGATE_DEBUG=3 gated --line "$INIT" -- "$SRV" read write stderr-mark
    assert_frames "$(answer 0 initialize)"
    assert_stderr_has "${three[@]}"
    assert_stderr_lacks "${four[@]}"
    STDIOGATE_DEBUG=4 gated --line "$INIT" -- "$SRV" read write stderr-mark
    assert_frames "$(answer 0 initialize)"
    assert_stderr_has "${three[@]}" "${four[@]}"
    # once per call: one write-junk, one trace line for it
    [ "$(grep -c 'bytes to the diversion' "$ERR")" -eq 1 ] || { show_run; false; }
    assert_prefix_pid
}

@test "diagnostics: a bad STDIOGATE_DEBUG value does not break the server" {
    STDIOGATE_DEBUG=banana gated --line "$INIT" -- "$SRV" read write
    assert_status 0
    assert_frames "$(answer 0 initialize)"
}

@test "handshake: setenv(\"STDIOGATE_OPEN\", \"1\", 1) from C opens the gate" {
    JUNK=(printf-junk write-junk)
    STDIOGATE_DEBUG=2 diverted --frames 2 --line "$INIT" -- "$SRV" read printf write handshake fdreport
    assert_stderr_has "gate opened by handshake"
    assert_frames '{"jsonrpc":"2.0","method":"fds","params":{"0":"open","1":"open","2":"open"}}' "$(answer 0 initialize)"
}

@test "handshake: putenv(\"STDIOGATE_OPEN=1\") from C opens the gate" {
    JUNK=(printf-junk write-junk)
    STDIOGATE_DEBUG=2 diverted --frames 1 -- "$SRV" none printf write putenv-handshake fdreport
    assert_stderr_has "gate opened by handshake"
    assert_frames '{"jsonrpc":"2.0","method":"fds","params":{"0":"open","1":"open","2":"open"}}'
}

@test "environment: STDIOGATE_WIRE is removed from the server's environment" {
    gated --line "$INIT" -- /bin/sh -c 'echo "wire=${STDIOGATE_WIRE-unset}" >&2; IFS= read -r l; echo "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"echo\":\"initialize\"}}"'
    assert_status 0
    assert_stderr_has "wire=unset"
    assert_frames "$(answer 0 initialize)"
}

@test "exports: libstdiogate.so exports only interposed libc functions" {
    libc=$(ldd "$SRV" | awk '/libc\.so/ { print $3 }')
    [ -f "$libc" ]
    nm -D --defined-only "$libc" | awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u >"$BATS_TEST_TMPDIR/libc"
    nm -D --defined-only "$STDIOGATE_LIB" | awk '{ print $2, $3 }' >"$BATS_TEST_TMPDIR/ours"
    [ -s "$BATS_TEST_TMPDIR/ours" ]
    # the scanf family's __isoc23_ names are libc functions from glibc 2.38 on
    bad=$(awk '{ sub(/@.*/, "", $2); print $2 }' "$BATS_TEST_TMPDIR/ours" | sort -u | comm -23 - "$BATS_TEST_TMPDIR/libc" |
          grep -Ev '^__isoc23_v?f?w?scanf$' || true)
    if [ -n "$bad" ]; then
        echo "exported but not libc functions:" >&2; echo "$bad" >&2; false
    fi
    # and they are functions (T), not data
    if awk '$1 != "T" && $1 != "W" && $1 != "i"' "$BATS_TEST_TMPDIR/ours" | grep . >&2; then
        echo "non-function exports above" >&2; false
    fi
}

# Issue 45: the level-2 summary's count when the last line has no newline,
# by each way the junk went: straight to stderr (write(2), stderr takes it
# at once), through the helper (a raw system call the library cannot see:
# the helper counts), both, and the guard's line for junk after the gate.
# Each row (words; "_" for a blank in a count): the pieces the server
# writes before its first read ("|" between calls, "\n" escapes, "raw:" a
# raw system call), the pieces it writes after its answer ("-": none), and
# the two summary lines' counts ("-": no guard line).
summary_row() {
    local before=$1 after=${2#-} want=${3//_/ } kept=${4//_/ } code
    code='import ctypes, os, sys
raw = lambda b: ctypes.CDLL(None).syscall(1, 1, b, len(b))
def out(spec):
    for p in spec.split("|"):
        if p.startswith("raw:"): raw(p[4:].encode().decode("unicode_escape").encode())
        elif p: os.write(1, p.encode().decode("unicode_escape").encode())
out(sys.argv[1])
sys.stdin.readline()
os.write(1, b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n")
out(sys.argv[2])'
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$PYTHON" -c "$code" "$before" "$after"
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","id":0,"result":{}}'
    grep -Eq "^stdiogate\[[0-9]+\]: diverted to stderr: $want\$" "$ERR" ||
        { echo "no summary '$want'" >&2; show_run; false; }
    if [ "$kept" = - ]; then
        assert_stderr_lacks "guard: kept"
    else
        # (the last junk line has no newline: our line follows it on the same line)
        grep -Eq "stdiogate\[[0-9]+\]: guard: kept $kept off the wire after the gate\$" "$ERR" ||
            { echo "no guard summary '$kept'" >&2; show_run; false; }
    fi
}

@test "diagnostics: level 2's counts when the last line has no newline (straight to stderr, through the helper, both; the guard's)" {
    row_table summary_row \
        'a\nb - 3_bytes_in_2_lines -' \
        'ab - 2_bytes_in_1_line -' \
        'a|\n - 2_bytes_in_1_line -' \
        'a\n|b - 3_bytes_in_2_lines -' \
        'raw:a\nb - 3_bytes_in_2_lines -' \
        'raw:a|raw:\n - 2_bytes_in_1_line -' \
        'a\n|raw:b - 3_bytes_in_2_lines -' \
        'a\n x\ny 2_bytes_in_1_line 3_bytes_in_2_lines' \
        'a\n x 2_bytes_in_1_line 1_byte_in_1_line'
}
