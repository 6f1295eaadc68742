#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Fault injection: signals, threads and processes around the gate.
# Fixture: tests/fixtures/fault_srv.c (see its header for each MODE).  Each
# test states its expected outcome; "nothing lost" means stdout carries
# exactly the expected frames and every line of startup junk is on stderr.

load ../helpers

frame() { printf '{"jsonrpc":"2.0","id":%s,"result":{"mode":"%s"}}' "$1" "$2"; }

setup() {
    JUNK=(junk-printf junk-write)
    # bytes of the first message as the client sends it (INIT and a newline)
    N=$(( ${#INIT} + 1 ))
}

# Expected: SIGALRM every millisecond without SA_RESTART, so reads fail with
# EINTR (the first one before any data: the client waits for it); an
# interrupted read is neither input nor end of input; the gate opens on the
# message.
@test "fault signals: reads interrupted by signals (EINTR)" {
    gated --wait-err ready-eintr --line "$INIT" -- "$BIN/fault_srv" eintr
    assert_status 0
    assert_frames "$(frame 0 eintr)"
    assert_junk_on_stderr
}

@test "fault signals: reads interrupted by signals, the message one byte at a time" {
    gated --wait-err ready-eintr --bytewise --line "$INIT" -- "$BIN/fault_srv" eintr
    assert_status 0
    assert_frames "$(frame 0 eintr)"
    assert_junk_on_stderr
}

# Expected: a SIGALRM handler (every 200 us) reads stdin one byte at a time
# while main reads too, possibly interrupting the library in the middle of
# its own bookkeeping for main's read.  No deadlock, no crash; the gate opens
# by the time the whole message has been read (by either); stdout is exactly
# the frame.  Sent whole and one byte at a time.
@test "fault signals: a signal handler that reads stdin" {
    gated --line "$INIT" --frames 1 -- "$BIN/fault_srv" sighandler "$N"
    assert_status 0
    assert_frames "$(frame 1 sighandler)"
    assert_junk_on_stderr
    gated --bytewise --line "$INIT" --frames 1 -- "$BIN/fault_srv" sighandler "$N"
    assert_status 0
    assert_frames "$(frame 1 sighandler)"
    assert_junk_on_stderr
}

# Expected: two threads blocked in read(0) at the same time while a third
# prints 200 lines of junk (100 with printf, 100 with write(1)); the client
# sends once the printer is done.  Every junk line is on stderr, stdout is
# exactly the frame, the gate opened once.  Run 10 times, whole and byte by
# byte: the two readers' bytes reach the library in any order.
@test "fault threads: two threads read stdin while a third prints" {
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        STDIOGATE_DEBUG=2 gated --wait-err ready-threads --line "$INIT" --frames 1 -- \
            "$BIN/fault_srv" threads "$N"
        assert_status 0
        assert_frames "$(frame 1 threads)"
        [ "$(grep -c '^thread-junk-' "$ERR")" -eq 200 ] || { show_run; false; }
        [ "$(grep -c 'gate opened' "$ERR")" -eq 1 ] || { show_run; false; }
    done
    for i in 1 2 3; do
        STDIOGATE_DEBUG=2 gated --bytewise --wait-err ready-threads --line "$INIT" --frames 1 -- \
            "$BIN/fault_srv" threads "$N"
        assert_status 0
        assert_frames "$(frame 1 threads)"
        [ "$(grep -c '^thread-junk-' "$ERR")" -eq 200 ] || { show_run; false; }
    done
}

# Expected: the handshake (setenv STDIOGATE_OPEN=1 in one thread) and the
# read of the whole first message (another thread) released by one barrier:
# the gate opens exactly once (one "gate opened by" line), by either; the
# junk is on stderr and stdout is exactly the frame.  30 runs.
@test "fault threads: handshake and read open the gate at the same moment" {
    local i
    for i in $(seq 30); do
        STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$BIN/fault_srv" race
        assert_status 0
        assert_frames "$(frame 0 race)"
        assert_junk_on_stderr
        [ "$(grep -c 'gate opened by' "$ERR")" -eq 1 ] || { show_run; false; }
    done
}

# Expected: the server forks while diverted; the child prints junk (and
# flushes the parent's unflushed printf junk it inherited) and exits; the
# parent prints more junk and serves.  All of it on stderr; stdout exactly
# the frame.
@test "fault process: fork after diversion, the parent serves" {
    gated --line "$INIT" -- "$BIN/fault_srv" fork
    assert_status 0
    assert_frames "$(frame 0 fork)"
    JUNK+=(child-junk-printf child-junk-write parent-junk-printf parent-junk-write)
    assert_junk_on_stderr
}

# Expected: the child serves (its gate opens on its read); the parent, which
# never reads, stays diverted: its later junk is on stderr.
@test "fault process: fork after diversion, the child serves" {
    gated --line "$INIT" -- "$BIN/fault_srv" forkserve
    assert_status 0
    assert_frames "$(frame 0 forkserve)"
    JUNK+=(parent-junk-printf parent-junk-write)
    assert_junk_on_stderr
}

# Expected: execv of a missing file, execvp of a missing command, execve of
# a non-executable file (the library does not even hand the wire over for
# these), then files that pass the "runnable" check but whose exec fails
# anyway: a script naming a missing interpreter (ENOENT), garbage with the x
# bit (ENOEXEC), /bin/true with 4 MiB of arguments (E2BIG).  After each
# failure the caller is diverted again: the junk it prints afterwards is on
# stderr; then it serves normally.
@test "fault process: exec failing leaves the caller diverted" {
    local script="$BATS_TEST_TMPDIR/badinterp" garbage="$BATS_TEST_TMPDIR/garbage"
    printf '#!/nonexistent/stdiogate-interp\n' >"$script"
    printf '\001\002\003garbage\n' >"$garbage"
    chmod +x "$script" "$garbage"
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$BIN/fault_srv" execfail "$script" "$garbage"
    assert_status 0
    assert_frames "$(frame 0 execfail)"
    local k
    for k in 1 2 3 4 5 e2big; do JUNK+=("after-exec-junk-$k-printf" "after-exec-junk-$k-write"); done
    assert_junk_on_stderr
    # the wire was handed over (and taken back) for the runnable ones
    assert_stderr_has "exec: handing the wire to $script" "exec: handing the wire to $garbage"
}
