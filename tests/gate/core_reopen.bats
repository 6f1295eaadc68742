#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: a server that opens its stdout by name (/dev/stdout, /dev/fd/1,
# /proc/self/fd/1, /proc/<pid>/fd/N of a copy), as rmcp's stdio_pipes()
# does, and answers through the new descriptor.  Unwrapped that is a new
# open file on the wire; wrapped and diverted the name resolves to the
# diversion, and without the library's help every answer went to stderr and
# the client waited forever.  Junk written through the new descriptor
# before the first message must still reach stderr.

load ../helpers

SRV=$BIN/core_reopen
JUNK=(reopen-banner-junk reopen-fd-junk)

# reopened NAME [HOW] [OPT...]: unwrapped the junk is on stdout, wrapped on
# stderr; the answers to initialize and ping reach the wire, through a
# descriptor of the same number (fd 3) as unwrapped.
reopened() {
    local name=$1 how=${2:-open}
    shift 2 || shift
    init_ping_diverted --timeout 10 "$@" -- "$SRV" "$name" "$how"
    assert_stderr_has "reopen: served on descriptor 3; stderr blocking"
}

@test "reopen: /proc/self/fd/1, O_WRONLY|O_NONBLOCK, pipes: the answers reach the wire" {
    reopened /proc/self/fd/1
}
@test "reopen: /dev/stdout, pipes" { reopened /dev/stdout; }
@test "reopen: /dev/fd/1, pipes" { reopened /dev/fd/1; }
@test "reopen: /proc/<own pid>/fd/1, pipes" { reopened pid; }
@test "reopen: /proc/self/fd/1 with openat" { reopened /proc/self/fd/1 openat; }
@test "reopen: /proc/self/fd/1 with open64" { reopened /proc/self/fd/1 open64; }
@test "reopen: /dev/stdout with O_CREAT|O_TRUNC and a mode (a shell's >/dev/stdout)" {
    reopened /dev/stdout creat
}
@test "reopen: /proc/self/fd/1 with the fortified __open_2" { reopened /proc/self/fd/1 open_2; }

@test "reopen: /proc/self/fd/N, N a dup(1) taken while diverted" {
    init_ping_diverted --timeout 10 -- "$SRV" copy
    assert_stderr_has "reopen: served on descriptor 4; stderr blocking"
}

@test "reopen: stderr a regular file: junk appended to it, O_TRUNC does not empty it" {
    init_ping_diverted --timeout 10 --stderr-file -- "$SRV" /dev/stdout creat
    # the banner was written before the open with O_TRUNC
    assert_stderr_has reopen-banner-junk "reopen: served on descriptor 3; stderr blocking"
}

@test "reopen: sockets: the open fails with ENXIO wrapped as unwrapped, fd 1 serves" {
    ungated --line "$INIT" --timeout 10 --sockets -- "$SRV" /proc/self/fd/1
    assert_status 0
    assert_stderr_has "reopen: open failed: ENXIO"
    assert_stdout_has reopen-banner-junk
    init_diverted --timeout 10 --sockets -- "$SRV" /proc/self/fd/1
    assert_stderr_has "reopen: open failed: ENXIO" "reopen: served on descriptor 1"
}

@test "reopen: an epoll registration made before the gate opened still wakes the writer (answer > 64 KiB)" {
    # The kernel drops the registration with the open file it was made for:
    # unless it is made again for the wire, the writer waits forever at the
    # first EAGAIN (tokio, under rmcp).  4 MB: the writer meets a full
    # wire (said on stderr) however fast the client reads (with 300 KB a
    # fast client sometimes took it all without one EAGAIN).
    export REOPEN_PAD=4000000
    local want=$BATS_TEST_TMPDIR/want
    { printf '{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize","pad":"'
      head -c "$REOPEN_PAD" /dev/zero | tr '\0' x
      printf '"}}\n'; } >"$want"
    diverted --line "$INIT" --timeout 20 -- "$SRV" /proc/self/fd/1 epoll
    cmp "$OUT" "$want"
    assert_stderr_lacks "no write readiness"
    assert_stderr_has "reopen: served on descriptor 3; stderr blocking" "reopen: the wire is full: waiting in epoll_wait"
}

# epoll_wire TIMEOUT: core_epoll (fd 1 registered with epoll before the
# gate, a 2,000,000-byte answer after it, written on EAGAIN's readiness),
# unwrapped first (the banner is on stdout there), then wrapped: the answer
# whole on the wire, the writer told it had room.
epoll_wire() {
    local want=$BATS_TEST_TMPDIR/want
    JUNK=(epoll-banner-junk)
    { printf '{"jsonrpc":"2.0","id":0,"result":{"pad":"'
      head -c 2000000 /dev/zero | tr '\0' x
      printf '"}}\n'; } >"$want"
    diverted --line "$INIT" --timeout "$1" -- "$BIN/core_epoll"
    cmp "$OUT" "$want"
    assert_stderr_has "epoll: wrote 2000063 bytes"
    assert_stderr_lacks "no write readiness"
}

@test "reopen: fd 1 itself registered with epoll before the gate (tokio's AsyncFd): 2,000,000 bytes reach the wire after the gate" {
    # Issue 42: the registration was the diversion's; when the gate put the
    # wire on fd 1 the writer never heard it had room (65,536 bytes, then
    # status 4).
    epoll_wire 30
}

# A registration changed with EPOLL_CTL_MOD before the gate (an event loop
# that registers fd 1 for input, then asks for EPOLLOUT once it has
# something to write): the gate makes the changed one again on the wire,
# not the first (ind7-epoll-mod-not-noted: EPOLLIN again, and the writer's
# first EAGAIN waited for ever: "no write readiness", status 4).
@test "reopen: fd 1 registered with epoll for input, then changed to EPOLLOUT (EPOLL_CTL_MOD) before the gate: 2,000,000 bytes reach the wire after the gate" {
    CORE_EPOLL_MOD=1 epoll_wire 60
}

# (coverage round 2 of 2026-12-07: the table of registrations full, and a
# registration deleted before the gate.)  fd 1 registered in 17 epoll
# instances (one deleted again first): the library remembers 16 and says it
# cannot remember the 17th; each of the 16 hears of the wire (the writer's
# k-th EAGAIN waits on instance 15-(k mod 16), the last remembered first).
# Then two, with one registered before them and deleted after: both hear.
@test "reopen: fd 1 registered with epoll in 17 instances before the gate (one more deleted): the 16 remembered hear of the wire, the 17th is said; a deleted one before two others" {
    local want=$BATS_TEST_TMPDIR/want
    JUNK=(epoll-banner-junk)
    { printf '{"jsonrpc":"2.0","id":0,"result":{"pad":"'
      head -c 2000000 /dev/zero | tr '\0' x
      printf '"}}\n'; } >"$want"
    CORE_EPOLL_SETS=17 CORE_EPOLL_WAIT=16 CORE_EPOLL_DEL=1 diverted --line "$INIT" --timeout 60 -- "$BIN/core_epoll"
    cmp "$OUT" "$want"
    assert_stderr_has "epoll: wrote 2000063 bytes"
    assert_stderr_lacks "no write readiness"
    [ "$(grep -c "epoll: no room to remember descriptor 1's registration: it will not hear of the wire" "$ERR")" = 1 ] || { show_run; false; }
    # a registration deleted after two others: a hole before them
    CORE_EPOLL_SETS=2 CORE_EPOLL_DEL=2 diverted --line "$INIT" --timeout 60 -- "$BIN/core_epoll"
    cmp "$OUT" "$want"
    assert_stderr_lacks "no write readiness" "no room"
}

@test "reopen: the new descriptor closed before the gate opens: fd 1 serves" {
    init_ping_diverted --timeout 10 -- "$SRV" /dev/stdout close
    assert_stderr_has "reopen: served on descriptor 1; stderr blocking"
}

@test "reopen: the new descriptor dup2'd onto fd 1 before the gate opens: fd 1 serves" {
    init_ping_diverted --timeout 10 -- "$SRV" /dev/stdout onto1
    assert_stderr_has "reopen: served on descriptor 1; stderr blocking"
}

@test "reopen: stdout that is not the wire (the program's own file on fd 1) is opened as it is" {
    # No diversion in this process (the marker names another file): the
    # open is the program's, and it gets fd 1's file.
    export STDIOGATE_WIRE=0:0
    LD_PRELOAD=$STDIOGATE_LIB "$SRV" /dev/stdout </dev/null 2>"$ERR" | cat >"$BATS_TEST_TMPDIR/own"
    grep -qxF reopen-banner-junk "$BATS_TEST_TMPDIR/own"
    grep -qxF reopen-fd-junk "$BATS_TEST_TMPDIR/own"
}

@test "reopen: a Python server, os.open('/dev/stdout'): the answers reach the wire" {
    JUNK=(py-reopen-banner-junk py-reopen-fd-junk)
    init_ping_diverted --timeout 10 -- "$PYTHON" "$FIX/core_py_reopen.py" /dev/stdout
    assert_stderr_has "py-reopen: served on descriptor 3"
}

# via_launcher SHELL SCRIPT: SHELL -c SCRIPT starts core_srv (as $0) with
# printf junk: the junk on stderr, the answers to an initialize and a ping
# on the wire.
via_launcher() {
    JUNK=(printf-junk)
    init_ping_diverted --timeout 10 -- "$1" -c "$2" "$BIN/core_srv"
}

# A launcher that points the server's stdout at /dev/stdout (`exec SERVER >/dev/stdout`): the
# stand-in becomes fd 1, and exec hands the wire on as it does for the diversion itself.
@test "reopen: a launcher's 'exec SERVER >/dev/stdout' (bash): the server diverts, then answers on the wire" {
    via_launcher /bin/bash 'exec "$0" read printf >/dev/stdout'
}

@test "reopen: a launcher's 'exec SERVER >/dev/stdout' (dash): the server diverts, then answers on the wire" {
    via_launcher /bin/sh 'exec "$0" read printf >/dev/stdout'
}

@test "reopen: a launcher's 'SERVER >/dev/stdout' in a child (bash): the server diverts, then answers on the wire" {
    via_launcher /bin/bash '"$0" read printf >/dev/stdout; :'
}

@test "reopen: a launcher's 'SERVER >/dev/stdout' in a child (dash): the server diverts, then answers on the wire" {
    via_launcher /bin/sh '"$0" read printf >/dev/stdout; :'
}

# Issue 22: every open form the library interposes, with every name of
# stdout it knows, not one of each.  Each pair asserted as `reopened` does
# (junk on stdout unwrapped, on stderr wrapped, both answers on the wire,
# served through the new descriptor, the gate opened by the read, not by
# the fail-safe); the failures name their pairs.
@test "reopen: every open form (open, open64, openat, openat64, __open_2, __open64_2, __openat_2, __openat64_2) x every name" {
    local how name bad=() fd
    for how in open open64 openat openat64 open_2 open64_2 openat_2 openat64_2 openat_dir; do
        for name in /dev/stdout /dev/fd/1 /proc/self/fd/1 /proc/thread-self/fd/1 pid; do
            fd=3
            [ "$how" = openat_dir ] && fd=4
            (
                set -e
                init_ping_diverted --timeout 10 -- "$SRV" "$name" "$how"
                assert_gate_opened_by read "$INIT_BYTES"
                assert_stderr_has "reopen: served on descriptor $fd; stderr blocking"
            ) 2>"$BATS_TEST_TMPDIR/pair.err" &
            if ! wait $!; then
                bad+=("$how:$name")
                { echo "=== failed: $how $name"; cat "$BATS_TEST_TMPDIR/pair.err"; } >&2
            fi
        done
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed pairs: ${bad[*]}" >&2; false; }
}

# Issue 42: glibc's fopen opens with an internal call the open interposers
# never see.  After the gate, junk written through fopen("/dev/stdout")
# reached the wire; before it, the stream is the diversion until the gate.
@test "reopen: fopen(\"/dev/stdout\") after the gate: its junk reaches stderr, its answers the wire" {
    JUNK=(fopen-late-junk)
    init_ping_diverted --timeout 10 -- "$BIN/core_fopen" after
    assert_stderr_has "fopen: served"
}

@test "reopen: fopen(\"/dev/stdout\") and fopen(\"/proc/self/fd/1\") before the gate: junk on stderr, the answers on the wire" {
    JUNK=(fopen-banner-junk)
    init_ping_diverted --timeout 10 -- "$BIN/core_fopen" before
    init_ping_diverted --timeout 10 -- "$BIN/core_fopen" before /proc/self/fd/1
    assert_stderr_has "fopen: served"
}

# (coverage round 2 of 2026-12-07: fopen's mode read before the gate, where
# the library opens the stand-in itself: only "w" was ever given.)  Each mode
# a server may open its stdout with: the junk on stderr, the answers on the
# wire, and "e" makes the descriptor close-on-exec, as glibc's fopen does.
fopen_mode_row() {
    local mode=$1 cloexec=$2
    JUNK=(fopen-banner-junk)
    CORE_FOPEN_MODE=$mode init_ping_diverted --timeout 10 -- "$BIN/core_fopen" before
    assert_stderr_has "fopen: served" "fopen: cloexec $cloexec"
}

@test "reopen: fopen(\"/dev/stdout\", MODE) before the gate, MODE a, a+, w+, we, ae, wb: junk on stderr, answers on the wire, close-on-exec as asked" {
    row_table fopen_mode_row "a 0" "a+ 0" "w+ 0" "we 1" "ae 1" "wb 0"
}

# (coverage round of 2026-12-07: the members no test called on a file that
# is not stdout, while the library minds the opens: before the gate and
# with the guard on.)  tests/fixtures/fam_open.py checks each open gives the
# file asked for, with the flags asked; it answers with the members that
# did not (none, unwrapped).
@test "reopen: every open member and fopen/freopen mode on an ordinary file (the *at ones relative to a directory descriptor), before the gate and after: the file, with the flags asked" {
    local d=$BATS_TEST_TMPDIR/od want='{"jsonrpc":"2.0","id":0,"result":{"bad":[]}}'
    mkdir -p "$d"
    printf 'fam-open-text' >"$d/f"
    ungated --line "$INIT" -- "$PYTHON" "$FIX/fam_open.py" "$d"
    assert_status 0
    assert_stdout_bytes "$want"$'\n'
    gated --line "$INIT" -- "$PYTHON" "$FIX/fam_open.py" "$d"
    assert_status 0
    assert_stdout_bytes "$want"$'\n'
}
