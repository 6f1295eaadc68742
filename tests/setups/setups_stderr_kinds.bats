#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 45: every kind of stderr, in every mode (default, --strict,
# --gate-only), at the default level.  tests/fixtures/setups_errkind.py
# gives the server a stderr of one kind: a pipe, a socket, a regular file, a
# terminal (a pty), /dev/null, closed, a pipe or a socket whose reader is
# gone, a pipe already full that nobody reads, and a pipe already full whose
# reader stalls until the first answer has reached the client and then
# reads again (or a socket, until the second: socket-stalled-2); and a
# terminal nobody reads that poll() calls writable though a line does not
# fit (tty-full: its own test, below).  The server (core_srv) writes two junk lines on stdout before
# its first read and one after its first answer (post-junk: the guard's,
# or with --gate-only the wire's).  Unwrapped: status 0, the junk on stdout (the test can
# fail).  Wrapped: the same status, stdout exactly the two answers; where
# stderr can be read it has exactly the junk (a terminal: in the default
# mode the startup output goes to /dev/null, and the wrapper says so once).

load ../helpers

KIND=$FIX/setups_errkind.py
ANSWERS=$'{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize"}}\n{"jsonrpc":"2.0","id":"p1","result":{"echo":"ping"}}\n'
ANSWERS_POST=$'{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize"}}\npost-junk\n{"jsonrpc":"2.0","id":"p1","result":{"echo":"ping"}}\n'
JUNK_BYTES=$'write-junk\nprintf-junk\n'

setup() {
    export FAM_SEND=$'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n{"jsonrpc":"2.0","id":"p1","method":"ping"}\n'
    SRV=("$BIN/core_srv" read printf write postjunk)
}

# kind_run KIND CMD...: sets status (the command's, from the driver's
# "status N"), OUT, ERR
kind_run() {
    local kind=$1 line; shift
    RUN_COMMAND="setups_errkind.py $kind -- $*"
    line=$(timeout 60 "$PYTHON" "$KIND" "$kind" "$OUT" "$ERR" -- "$@") || { echo "driver failed: $line" >&2; return 1; }
    status=${line#status }
}

# kind_row KIND MODE: MODE is default, strict or gate-only
kind_row() {
    local kind=$1 mode=$2 opts=()
    case $mode in strict) opts=(--strict) ;; gate-only) opts=(--gate-only) ;; esac
    kind_run "$kind" "${SRV[@]}"
    assert_status 0
    assert_stdout_has write-junk printf-junk post-junk
    kind_run "$kind" "$ROOT/stdiogate" "${opts[@]}" "${SRV[@]}"
    assert_status 0
    local post=post-junk$'\n'
    if [ "$mode" = gate-only ]; then
        assert_stdout_bytes "$ANSWERS_POST"     # the gate alone: post-junk on the wire
        post=
    else
        assert_stdout_bytes "$ANSWERS"
    fi
    case $kind/$mode in
        tty/strict|pipe/*|socket/*|file/*) assert_stderr_bytes "$JUNK_BYTES$post" ;;
        # every byte, but not in order: the startup junk waits in the helper
        # for a reader that waits for the first answer (the gate waits for
        # the helper a bounded time only), the junk after it may pass it
        stalled/*|socket-stalled*/*) [ "$(sort "$ERR")" = "$(printf '%s' "$JUNK_BYTES$post" | sort)" ] || { show_run; false; } ;;
        tty/*) assert_stderr_lacks write-junk printf-junk
               [ "$(grep -c 'stderr is a terminal' "$ERR")" = 1 ] || { show_run; false; } ;;
    esac
}

@test "setups: every kind of stderr (pipe, socket, file, tty, /dev/null, closed, reader gone, full, stalled then read) in every mode: the answers exactly, the status as unwrapped, the junk where stderr can be read" {
    row_table_modes kind_row pipe socket file tty devnull closed pipe-gone socket-gone pipe-full stalled socket-stalled
}

# A socket full when the junk after the first answer comes (its reader
# waits for the second answer): the guard must keep it for later (EAGAIN is
# full, not gone), and stderr gets it once read again.  The row above
# meets a full socket only when its reader is slower than the server.
@test "setups: stderr a socket still full when junk comes after the first answer, read after the second: the junk kept and delivered, in every mode" {
    row_table_modes kind_row socket-stalled-2
}

# gone_row KIND MODE: at level 2 (the wrapper's checker says what it does
# on stderr before COMMAND starts), stderr's reader gone: COMMAND still
# starts and answers; nothing of ours dies of SIGPIPE.
gone_row() {
    local kind=$1 mode=$2 opts=()
    case $mode in strict) opts=(--strict) ;; gate-only) opts=(--gate-only) ;; esac
    kind_run "$kind" "${SRV[@]}"
    assert_status 0
    STDIOGATE_DEBUG=2 kind_run "$kind" "$ROOT/stdiogate" "${opts[@]}" "${SRV[@]}"
    assert_status 0
    if [ "$mode" = gate-only ]; then assert_stdout_bytes "$ANSWERS_POST"; else assert_stdout_bytes "$ANSWERS"; fi
}

@test "setups: at level 2, a stderr whose reader is gone (pipe, socket) in every mode: the server starts and answers (the wrapper's checker died of SIGPIPE at its first line)" {
    row_table_modes gone_row pipe-gone socket-gone
}

# Three junk lines of 2 MiB after the first request, stderr a full pipe read
# only once the answer is out (stalled): the first overflow of the guard's
# backlog waits the stall time for stderr and finds it stalled; the next two
# drop at once (one wait, not three: the filter's rule, stall.h); the answer
# arrives.
@test "setups: a stalled stderr is waited for once, not at every junk line that overflows the backlog" {
    cd "$BATS_TEST_TMPDIR"
    cat >three_big.py <<'PY'
import os, sys
line = b"big-junk-" + b"x" * (2 * 1024 * 1024) + b"\n"
req = sys.stdin.buffer.readline()
for _ in range(3):
    os.write(1, line)
os.write(1, b'{"jsonrpc":"2.0","id":0,"result":{}}\n')
PY
    export FAM_SEND=$'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n'
    # the waits counted under strace: a poll of stderr for the stall time
    # that timed out
    kind_run stalled strace -f -qq -e trace=poll -o "$BATS_TEST_TMPDIR/poll.trace" \
        "$ROOT/stdiogate" "$PYTHON" three_big.py
    assert_status 0
    assert_stdout_bytes $'{"jsonrpc":"2.0","id":0,"result":{}}\n'
    local waits
    waits=$(grep -c 'fd=2, events=POLLOUT}], 1, 5000) = 0 (Timeout)' "$BATS_TEST_TMPDIR/poll.trace")
    [ "$waits" = 1 ] || { echo "waits for stderr: $waits" >&2; grep 5000 "$BATS_TEST_TMPDIR/poll.trace" >&2; false; }
}

# tight_row KIND MODE: stderr a terminal nobody reads, filled until poll()
# says it is writable while a line does not fit (tty-full: the driver
# checks that first); at level 2, and the server writes junk after its
# first answer.  Lines of ours come from the wrapper's checker before
# COMMAND starts ("stderr is a terminal", "preloading ... running ..."),
# from the library (its level-2 lines) and, in the default mode, the
# guard's junk after the gate.  A blocking write of any of them waited for
# ever: COMMAND never started, or never answered.  Now COMMAND starts and
# answers.
tight_row() {
    local kind=$1 mode=$2 opts=() answers=$ANSWERS
    case $mode in strict) opts=(--strict) ;; gate-only) opts=(--gate-only); answers=$ANSWERS_POST ;; esac
    kind_run "$kind" "$BIN/core_srv" read postjunk
    assert_status 0
    assert_stdout_bytes "$ANSWERS_POST"
    STDIOGATE_DEBUG=2 kind_run "$kind" "$ROOT/stdiogate" "${opts[@]}" "$BIN/core_srv" read postjunk
    assert_status 0
    assert_stdout_bytes "$answers"
}

@test "setups: stderr a terminal nobody reads that poll() calls writable though a line does not fit, at level 2, in every mode: no line of ours (the checker's, the library's, the guard's junk) waits for room, the server starts and answers" {
    row_table_modes tight_row tty-full
}
