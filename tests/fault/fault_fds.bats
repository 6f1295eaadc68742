#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Fault injection: descriptors.  Fixtures: tests/fixtures/fault_srv.c (the
# server: "junk-printf"/"junk-write" on stdout before it reads, then one frame
# per request), tests/fixtures/fault_exec.c (sets up the fault, then execs),
# tests/fixtures/fault_eater.c (a preload that takes every free descriptor).
# Each test states its expected outcome; "nothing lost" means: stdout carries
# exactly the expected frames, and the startup junk is on stderr (or, where
# stderr cannot take it, nowhere) but never on the wire.

load ../helpers

FRAME='{"jsonrpc":"2.0","id":0,"result":{"mode":"MODE"}}'
frame() { printf '%s' "${FRAME/MODE/$1}"; }

setup() {
    JUNK=(junk-printf junk-write)
}

# --- fds 0, 1, 2 closed at start, every combination --------------------------
# Expected, for the set S of descriptors closed when the wrapped server starts:
#  - the descriptors in S are still closed when main() runs, and the first
#    descriptor the program opens is the lowest of them (nothing private of
#    the library sits on 0, 1 or 2): fault_srv exits 10 or 11 otherwise;
#  - 0 and 1 open: stdout is exactly the frame; the junk is on stderr if 2 is
#    open, and nowhere (the diversion goes to /dev/null) if 2 is closed;
#  - 1 closed: nothing on stdout, no diversion, status 0;
#  - 0 closed (1 open): the server cannot read; its output stays diverted:
#    stdout is empty, the junk on stderr if 2 is open.
fds_case() {    # fds_case CLOSED...   (e.g. fds_case 0 2)
    local spec="" opts=() fd c frames=1
    for fd in 0 1 2; do
        c=o
        for x in "$@"; do [ "$x" = "$fd" ] && c=c; done
        spec="$spec$fd$c"
    done
    for x in "$@"; do opts+=(--close "$x"); done
    case " $* " in *" 0 "*|*" 1 "*) frames=0 ;; esac
    case " $* " in *" 0 "*) ;; *) opts+=(--line "$INIT") ;; esac
    gated "${opts[@]}" --frames "$frames" -- "$BIN/fault_srv" fds "$spec"
    assert_status 0
    if [ "$frames" = 1 ]; then
        assert_frames "$(frame fds)"
    else
        assert_frames
    fi
    case " $* " in
        *" 2 "*) assert_stderr_lacks junk ;;
        *" 1 "*) ;;     # fd 1 closed: the junk writes fail (EBADF), as unwrapped
        *) assert_junk_on_stderr ;;
    esac
    assert_stderr_lacks "cannot"
}

@test "fault fds: none closed" { fds_case; }
@test "fault fds: 0 closed" { fds_case 0; }
@test "fault fds: 1 closed" { fds_case 1; }
@test "fault fds: 2 closed" { fds_case 2; }
@test "fault fds: 0 and 1 closed" { fds_case 0 1; }
@test "fault fds: 0 and 2 closed" { fds_case 0 2; }
@test "fault fds: 1 and 2 closed" { fds_case 1 2; }
@test "fault fds: 0, 1 and 2 closed" { fds_case 0 1 2; }

# --- descriptor limits -------------------------------------------------------
# Expected: with RLIMIT_NOFILE as low as 4 (fds 0-2 plus the one the dynamic
# loader needs) the wire finds a descriptor below the limit, the junk is
# diverted and the frame reaches the wire.  (The wire takes that descriptor:
# fault_srv's "lowest-free=" line shows what the program has left.)
@test "fault fds: RLIMIT_NOFILE 4, 5 and 64: diverted, frame on the wire" {
    for n in 4 5 64; do
        ungated --line "$INIT" -- "$BIN/fault_exec" --nofile "$n" --gate -- "$BIN/fault_srv" nofile
        assert_status 0
        assert_frames "$(frame nofile)"
        assert_junk_on_stderr
    done
}

# Expected: every descriptor but one occupied at exec (the loader needs that
# one, and it is free again when the constructor runs): as above.
@test "fault fds: all descriptors but one occupied at start: diverted, frame on the wire" {
    ungated --line "$INIT" -- "$BIN/fault_exec" --nofile 64 --fill --gate -- "$BIN/fault_srv" nofile
    assert_status 0
    assert_frames "$(frame nofile)"
    assert_junk_on_stderr
}

# Expected: no free descriptor at all when the constructor runs (a preload
# initialised before it took them): the library cannot keep the wire, says
# so at level 1 ("cannot keep the wire"), and leaves fd 1 on the wire: the
# frame arrives; the junk goes where it would without stdiogate (the wire).
@test "fault fds: no free descriptor in the constructor: fd 1 left on the wire, level-1 message" {
    local eater="$BATS_TEST_TMPDIR/fault_eater.so"
    cc -O2 -fPIC -shared -o "$eater" "$FIX/fault_eater.c"
    ungated --line "$INIT" -- "$BIN/fault_exec" --nofile 64 --env FAULT_EAT_FDS=1 \
        --also "$eater" --gate -- "$BIN/fault_srv" nofile
    assert_status 0
    assert_stderr_has "cannot keep the wire"
    assert_stdout_has "$(frame nofile)"
    # nothing lost: the frame is intact on its own line
    grep -qxF "$(frame nofile)" "$OUT" || { show_run; false; }
}

# --- stderr a closed pipe ----------------------------------------------------
# Expected: stderr is a pipe whose reader is gone (EPIPE/SIGPIPE on write).
# Unwrapped, the server writes its junk on the wire and answers.  Wrapped, the
# diversion must not turn the junk into a SIGPIPE that kills the server: it
# answers, stdout is exactly the frame (the junk is lost, as it would be on a
# dead stderr).
@test "fault fds: stderr a closed pipe: the server survives and answers" {
    ungated --line "$INIT" -- "$BIN/fault_exec" --dead-stderr -- "$BIN/fault_srv" basic
    assert_status 0
    assert_stdout_has "$(frame basic)"
    ungated --line "$INIT" -- "$BIN/fault_exec" --dead-stderr -- "$STDIOGATE_WRAPPER" "$BIN/fault_srv" basic
    assert_status 0
    assert_frames "$(frame basic)"
}

# wrapped_py ARG...: runs the Python script on stdin (real_python) with ARG...
# after a prelude that defines wait_junk(p): reads p's stderr until the
# server's "junk-write" (it has started and is diverted; bounded, 20 s) and
# returns what it read.
WAIT_JUNK_PY='
import select, sys, time
def wait_junk(p):
    err, end = b"", time.monotonic() + 20
    while b"junk-write" not in err:
        if not select.select([p.stderr], [], [], max(0, end - time.monotonic()))[0]:
            p.kill(); sys.stderr.write("timeout: no junk on stderr\n"); sys.exit(124)
        more = p.stderr.read1(4096)
        if not more:
            break
        err += more
    return err
'
wrapped_py() {
    local py
    py=$(real_python)
    "$py" -c "$WAIT_JUNK_PY$(cat)" "$@"
}

# Expected: stderr's reader goes away while the server is diverted (after
# its startup junk), then the server writes more junk (after a read that did
# not complete the first message).  The diversion is a pipe to the drain
# process, which drops what a dead stderr cannot take: no SIGPIPE for the
# server (unwrapped, that junk went to the client, which skipped it).  The
# server answers, and only the answer reached the wire.  (Before the drain,
# the server died of SIGPIPE here, status 141.  A stderr already dead at
# start gets /dev/null: the test above.)
@test "fault fds: stderr's reader goes away while diverted: the server survives and answers, nothing else on the wire" {
    status=0
    wrapped_py "$STDIOGATE_WRAPPER" "$BIN/fault_srv" "$INIT" >"$OUT" 2>"$ERR" <<'EOF' || status=$?
import fcntl, struct, subprocess, termios
wrapper, srv, init = sys.argv[1], sys.argv[2], sys.argv[3].encode()
p = subprocess.Popen([wrapper, srv, "chatter"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
err = wait_junk(p)
p.stderr.close()                      # stderr's reader is gone
p.stdin.write(init[:10]); p.stdin.flush()
while struct.unpack("i", fcntl.ioctl(p.stdin.fileno(), termios.FIONREAD, b"\0" * 4))[0]:
    if p.poll() is not None:
        break
    time.sleep(0.0005)                # polling a condition: the server read those 10 bytes
try:
    p.stdin.write(init[10:] + b"\n")
    p.stdin.close()
except BrokenPipeError:
    pass
sys.stdout.buffer.write(p.stdout.read())
rc = p.wait()
sys.exit(rc if rc >= 0 else 128 - rc)
EOF
    assert_status 0
    assert_frames "$(frame chatter)"
}

# Expected: stderr is the wire itself (the client merged them, 2>&1): the
# diversion would put the junk right back on the wire, so it goes to
# /dev/null: stdout (= stderr) is exactly the frame.  Unwrapped, the junk is
# on it (control).
@test "fault fds: stderr is the wire (2>&1): junk dropped, stdout exactly the frame" {
    ungated --line "$INIT" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$BIN/fault_srv" basic
    assert_status 0
    assert_stdout_has junk-write
    ungated --line "$INIT" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$STDIOGATE_WRAPPER" "$BIN/fault_srv" basic
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","id":0,"result":{"mode":"basic"}}'
}

# Expected: the same with junk after the first answer too (the session
# guard's, not the diversion's): kept off the wire and dropped, and nothing
# of stdiogate's on the wire either, at level 1 (not "N bytes ... dropped:
# stderr was full": stderr is the wire, nothing was lost to a full stderr)
# nor when the junk is logged.  Unwrapped, the junk is on it (control).
@test "fault fds: stderr is the wire (2>&1), junk after the first answer too: dropped, stdout exactly the answers, nothing of ours on it" {
    ungated --line "$INIT" --line "$PING" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$BIN/core_srv" read write postjunk
    assert_status 0
    assert_stdout_has write-junk post-junk
    ungated --line "$INIT" --line "$PING" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$STDIOGATE_WRAPPER" "$BIN/core_srv" read write postjunk
    assert_status 0
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    STDIOGATE_LOG=$BATS_TEST_TMPDIR/log ungated --line "$INIT" --line "$PING" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$STDIOGATE_WRAPPER" "$BIN/core_srv" read write postjunk
    assert_status 0
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    grep -q 'post-junk' "$BATS_TEST_TMPDIR/log" || { echo "post-junk not in the log"; show_run; false; }
}

# Expected: with --gate-only (no session guard) the diversion still keeps
# the startup junk off a stderr that is the wire (to /dev/null), and what
# comes after the first answer reaches the wire as it would unwrapped.
@test "fault fds: stderr is the wire (2>&1) under --gate-only: the startup junk dropped, the junk after the first answer on the wire as unwrapped" {
    ungated --line "$INIT" --line "$PING" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$BIN/core_srv" read write postjunk
    assert_status 0
    assert_stdout_has write-junk post-junk
    ungated --line "$INIT" --line "$PING" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$STDIOGATE_WRAPPER" --gate-only "$BIN/core_srv" read write postjunk
    assert_status 0
    assert_stdout_bytes "$(answer 0 initialize)"$'\npost-junk\n'"$(answer '"p1"' ping)"$'\n'
}

# Expected: the same with stdiogate's own diagnostics on: level 2 (the
# wrapper's and the library's lines, the gate's, the guard's count) and a
# log that cannot be opened (a FIFO nobody reads: the library says so at
# level 1).  stderr is the wire: none of them may reach it, in the default
# mode and with --strict.  (Found by the eighth independent round's runner:
# both lines went onto the wire.)
@test "fault fds: stderr is the wire (2>&1): stdiogate's own lines (-vv, a log it cannot open) stay off it, default and --strict" {
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    local mode
    for mode in "" --strict; do
        STDIOGATE_DEBUG=2 ungated --line "$INIT" --line "$PING" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$STDIOGATE_WRAPPER" $mode "$BIN/core_srv" read write postjunk
        assert_status 0
        assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
        STDIOGATE_LOG=$BATS_TEST_TMPDIR/fifo ungated --line "$INIT" --line "$PING" -- sh -c 'exec 2>&1; exec "$0" "$@"' "$STDIOGATE_WRAPPER" $mode "$BIN/core_srv" read write postjunk
        assert_status 0
        assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    done
    # the same diagnostics, stderr apart from the wire: they are there
    STDIOGATE_DEBUG=2 ungated --line "$INIT" --line "$PING" -- "$STDIOGATE_WRAPPER" "$BIN/core_srv" read write postjunk
    assert_status 0
    grep -q '^stdiogate\[[0-9]*\]: gate opened' "$ERR" || { echo "no level-2 line on a stderr of its own" >&2; show_run; false; }
    STDIOGATE_LOG=$BATS_TEST_TMPDIR/fifo ungated --line "$INIT" --line "$PING" -- "$STDIOGATE_WRAPPER" "$BIN/core_srv" read write postjunk
    assert_status 0
    grep -q 'cannot open the log' "$ERR" || { echo "no log warning on a stderr of its own" >&2; show_run; false; }
}

# Expected: the program makes its stdout non-blocking while diverted (Node
# does, on its stdout pipe): that mode belongs to the wire, and stderr's open
# file (shared with the client) is given its own mode back.  After the first
# answer the server reports the modes: stdout non-blocking, stderr blocking,
# as unwrapped (control).
@test "fault fds: O_NONBLOCK set on the diverted stdout ends up on the wire, not on stderr" {
    local want='{"jsonrpc":"2.0","method":"flags","params":{"stdout":"nonblock","stderr":"block"}}'
    ungated --line "$INIT" --frames 2 -- "$BIN/fault_srv" nbstdout
    assert_status 0
    assert_stdout_has "$want"
    gated --line "$INIT" --frames 2 -- "$BIN/fault_srv" nbstdout
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","id":0,"result":{"mode":"nbstdout"}}' "$want"
    assert_junk_on_stderr
}

# --- stdin non-blocking ------------------------------------------------------
# Expected: stdin O_NONBLOCK, the server polls after EAGAIN (read returns -1
# before any data: that must not count as input nor as end of input); the
# client sends only after the first EAGAIN; the gate opens on the message.
@test "fault fds: stdin non-blocking (set by the program, EAGAIN first)" {
    gated --wait-err ready-eagain --line "$INIT" -- "$BIN/fault_srv" nonblock
    assert_status 0
    assert_frames "$(frame nonblock)"
    assert_junk_on_stderr
}

@test "fault fds: stdin non-blocking (set before exec, EAGAIN first)" {
    ungated --wait-err ready-eagain --line "$INIT" -- "$BIN/fault_exec" --nonblock-stdin -- \
        "$STDIOGATE_WRAPPER" "$BIN/fault_srv" basic
    assert_status 0
    assert_frames "$(frame basic)"
    assert_junk_on_stderr
}

# --- the wire closed by the client before the first message -------------------
# Expected: the client closes its end of stdout, then sends the first message
# and closes stdin.  The server's junk is on stderr (the diversion keeps it
# off the dead wire), the gate opens on the message, and the server (SIGPIPE
# ignored) sees EPIPE on the wire as it would unwrapped; it exits 0.
@test "fault fds: wire closed by the client before the first message" {
    closed_wire_run send
    assert_status 0
    assert_stderr_has junk-write junk-printf "gate opened by read after" "answer-failed: Broken pipe"
}

# Expected: the same, but the client closes stdin without sending anything:
# the gate opens at end of input; the server exits 0.  Nothing hangs.
@test "fault fds: wire and stdin closed by the client before any message" {
    closed_wire_run nosend
    assert_status 0
    assert_stderr_has junk-write junk-printf "at end of input"
}

closed_wire_run() {    # closed_wire_run send|nosend
    status=0
    STDIOGATE_DEBUG=2 wrapped_py "$STDIOGATE_WRAPPER" "$BIN/fault_srv" "$1" >"$OUT" 2>"$ERR" <<'EOF' || status=$?
import subprocess
wrapper, srv, send = sys.argv[1], sys.argv[2], sys.argv[3] == "send"
p = subprocess.Popen([wrapper, srv, "closedwire"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
p.stdout.close()                      # the wire's reader is gone
err = wait_junk(p)
if send:
    p.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize"}\n')
p.stdin.close()
err += p.stderr.read()
sys.stderr.buffer.write(err)
sys.exit(p.wait())
EOF
}
