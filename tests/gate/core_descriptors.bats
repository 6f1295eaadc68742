#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: descriptors.  Programs copy, save, close and overwrite
# descriptors; stdin, stdout and stderr may be closed, sockets or terminals.
# The wire must still get exactly the answers, the junk must not.

load ../helpers

SRV=$BIN/core_srv

@test "fds: the Python-SDK-v2 pattern in C: answer through a private copy of fd 1" {
    # out=fcntl(1,F_DUPFD_CLOEXEC,3); dup2(2,1); in=fcntl(0,F_DUPFD_CLOEXEC,3);
    # dup2(/dev/null,0); read `in`; answer through `out`; then "post-junk" on
    # fd 1, which the program pointed at stderr: it stays there.
    JUNK=(printf-junk write-junk)
    init_diverted -- "$SRV" read printf write sdk2 postjunk
    assert_stderr_has sdk2-junk post-junk
}

@test "fds: a shell-style save of fd 1 around a redirected builtin, then dup2(file, 3)" {
    JUNK=(printf-junk after-builtin-junk after-fd3-junk)
    init_diverted -- "$SRV" read printf shellsave
    assert_stderr_has builtin-junk
}

@test "fds: a server in dash builtins (echo >&2, exec 3<, read)" {
    JUNK=(sh-banner-junk sh-after-builtin-junk sh-after-fd3-junk)
    init_ping_diverted -- /bin/sh "$FIX/core_sh_server.sh"
    assert_stderr_has sh-stderr-line sh-answered
}

@test "fds: a server in bash builtins (echo >&2, exec 3<, read)" {
    JUNK=(sh-banner-junk sh-after-builtin-junk sh-after-fd3-junk)
    init_ping_diverted -- /bin/bash "$FIX/core_sh_server.sh"
    assert_stderr_has sh-stderr-line sh-answered
}

# copy KIND: the server copies fd 1 that way while it is diverted, writes
# junk through the copy at once (it must reach stderr: the copy is not the
# wire yet), and answers through the copy (it must reach the wire).
copy() {
    JUNK=(printf-junk copy-junk)
    init_ping_diverted -- "$SRV" read printf "copy-$1"
}

@test "fds: a dup(1) copy: diverted until the gate opens, the wire after" { copy dup; }
@test "fds: a dup2(1, 50) copy: diverted until the gate opens, the wire after" { copy dup2; }
@test "fds: a dup3(1, 51, O_CLOEXEC) copy: diverted until the gate opens, the wire after" { copy dup3; }
@test "fds: an fcntl(1, F_DUPFD, 3) copy: diverted until the gate opens, the wire after" { copy fcntl; }
@test "fds: an fcntl64(1, F_DUPFD_CLOEXEC, 3) copy: diverted until the gate opens, the wire after" {
    nm -D "$SRV" | grep -q ' U fcntl64'
    copy fcntl64
}

# A copy that follows stdout onto the wire stays guarded: a log line written
# through it after the gate is junk like one on fd 1 (ind10-dup-of-stdout-
# unguarded-after-gate: it reached the client between the two answers).
@test "fds: a dup(1) copy after the gate: junk through it reaches stderr, the answers through it the wire" {
    JUNK=(printf-junk copy-junk post-copy-junk)
    init_ping_diverted -- "$SRV" read printf copy-dup postcopy
}

# closer STEP: the server closes or overwrites every descriptor above 2 that
# way before it serves.
closer() {
    JUNK=(printf-junk write-junk)
    init_diverted -- "$SRV" read printf write "$1"
}

@test "fds: close_range(3, ~0U, 0) before serving" { closer close_range; }
@test "fds: closefrom(3) before serving" { closer closefrom; }
# With stderr a regular file the library keeps no handle on stderr (it
# needs none): one of its private descriptors is -1, which a close up to
# ~0U must not take for the number 4294967295 (it would close 0 to 2 too).
@test "fds: close_range(3, ~0U, 0) and closefrom(3) before serving, stderr a regular file" {
    local how
    for how in close_range closefrom; do
        JUNK=(printf-junk write-junk)
        diverted --stderr-file --line "$INIT" -- "$SRV" read printf write "$how"
        assert_frames "$(answer 0 initialize)"
    done
}
@test "fds: close() of every fd from 3 to RLIMIT_NOFILE before serving" { closer closeloop; }
@test "fds: dup2(/dev/null, fd) onto every open fd >= 3 before serving" { closer dup2priv; }
@test "fds: dup3(/dev/null, fd, O_CLOEXEC) onto every open fd >= 3 before serving" { closer dup3priv; }

# own_file STEP: before serving, the server points fd 1 at its own file
# ($CORE_LOG) that way; fd 1 stays the program's, so the wire gets nothing.
own_file() {
    export CORE_LOG=$BATS_TEST_TMPDIR/own.log
    ungated --line "$INIT" --frames 0 -- "$SRV" read write "$1"
    assert_status 0
    assert_stdout_has write-junk
    gated --line "$INIT" --frames 0 -- "$SRV" read write "$1"
    assert_status 0
    assert_stderr_has "own1: fd 1 is still the program's file" write-junk
    assert_frames
    # the program's file got what it wrote after its dup2, the answer included
    grep -qF own1-junk "$CORE_LOG"
    grep -qxF "$(answer 0 initialize)" "$CORE_LOG"
}

@test "fds: fd 1 pointed at the program's own file stays the program's" { own_file own1; }
@test "fds: close(1), then a file opened on fd 1: the program's" { own_file own1close; }

@test "fds: stdin and stderr closed at start: they stay closed (nothing of the library lands on 0 or 2)" {
    JUNK=(printf-junk write-junk)
    both --close 0 --close 2 --frames 1 -- "$SRV" none printf write handshake fdreport
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","method":"fds","params":{"0":"closed","1":"open","2":"closed"}}'
}

@test "fds: stdin closed at start stays closed; junk on stderr; handshake opens the gate" {
    JUNK=(printf-junk write-junk)
    diverted --close 0 --frames 1 -- "$SRV" none printf write handshake fdreport
    assert_frames '{"jsonrpc":"2.0","method":"fds","params":{"0":"closed","1":"open","2":"open"}}'
}

@test "fds: stderr closed at start: junk goes nowhere, the answer still reaches the wire" {
    JUNK=(printf-junk write-junk system-junk)
    both --close 2 --line "$INIT" -- "$SRV" read printf write system
    assert_status 0
    assert_frames "$(answer 0 initialize)"
}

@test "fds: stderr closed at start stays closed" {
    gated --close 2 --line "$INIT" --frames 2 -- "$SRV" read printf write handshake fdreport
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","method":"fds","params":{"0":"open","1":"open","2":"closed"}}' "$(answer 0 initialize)"
}

@test "fds: stdout closed at start: nothing breaks, fd 1 stays closed" {
    ungated --close 1 --line "$INIT" --frames 0 -- "$SRV" read printf write fderr
    assert_status 0
    STDIOGATE_DEBUG=2 gated --close 1 --line "$INIT" --frames 0 -- "$SRV" read printf write fderr
    assert_status 0
    assert_stderr_has '{"jsonrpc":"2.0","method":"fds","params":{"0":"open","1":"closed","2":"open"}}'
    assert_stderr_lacks "diverting" "cannot"
    assert_frames
}

# on_pty CLIENT-OPTION... -- COMMAND...: client.py run under script(1), so
# that the server's stderr is a terminal; the terminal's output goes to
# $BATS_TEST_TMPDIR/pty, the server's stdout to $OUT.
on_pty() {
    local cmd
    cmd=$(printf '%q ' "$PYTHON" "$CLIENT" --stderr-inherit --out "$OUT" "$@")
    status=0
    SHELL=/bin/bash script -qec "$cmd" /dev/null </dev/null >"$BATS_TEST_TMPDIR/pty" || status=$?
    : >"$ERR"
}

@test "fds: stderr a terminal: junk goes to /dev/null, not to the terminal; the answer to the wire" {
    on_pty --line "$INIT" -- "$SRV" read printf write system stderr-mark
    assert_status 0
    assert_stdout_has printf-junk write-junk system-junk
    grep -qF core-srv-ready "$BATS_TEST_TMPDIR/pty"   # stderr is the terminal
    # the default level says so, once, in the wrapper's words
    unset STDIOGATE_DEBUG
    on_pty --gate --line "$INIT" -- "$SRV" read printf write system stderr-mark
    assert_status 0
    tr -d '\r' <"$BATS_TEST_TMPDIR/pty" >"$BATS_TEST_TMPDIR/pty.lf"
    note="stdiogate: stderr is a terminal: the server's startup output goes to /dev/null (redirect stderr to a file, 2>server.log, to keep it)"
    [ "$(grep -cxF "$note" "$BATS_TEST_TMPDIR/pty.lf")" = 1 ] || { cat -v "$BATS_TEST_TMPDIR/pty"; false; }
    [ "$(grep -c stdiogate "$BATS_TEST_TMPDIR/pty.lf")" = 1 ]
    # not with --discard (asked for), not at level 0
    STDIOGATE_DISCARD=1 on_pty --gate --line "$INIT" -- "$SRV" read write stderr-mark
    ! grep -qF "stderr is a terminal" "$BATS_TEST_TMPDIR/pty" || false
    STDIOGATE_DEBUG=0 on_pty --gate --line "$INIT" -- "$SRV" read write stderr-mark
    ! grep -qF "stderr is a terminal" "$BATS_TEST_TMPDIR/pty" || false
    STDIOGATE_DEBUG=2 on_pty --gate --line "$INIT" -- "$SRV" read printf write system stderr-mark
    assert_status 0
    grep -qF core-srv-ready "$BATS_TEST_TMPDIR/pty"
    grep -qF "diverting stdout to /dev/null" "$BATS_TEST_TMPDIR/pty"
    if grep -qF -e printf-junk -e write-junk -e system-junk "$BATS_TEST_TMPDIR/pty"; then
        echo "junk reached the terminal:" >&2; cat -v "$BATS_TEST_TMPDIR/pty" >&2; false
    fi
    assert_frames "$(answer 0 initialize)"
}

@test "fds: the wire cannot be put back (every fd >= 3 closed with the raw syscall): exit 1 and a message" {
    JUNK=(printf-junk write-junk)
    both --line "$INIT" -- "$SRV" read printf write rawclose
    # keep stdin open: the gate must fail on the message, not at end of input
    gated --line "$INIT" --frames 0 --no-close -- "$SRV" read printf write rawclose
    assert_status 1
    assert_junk_on_stderr
    assert_stderr_has "cannot put stdout back on the wire"
    grep -E '^stdiogate\[[0-9]+\]: cannot put stdout back on the wire' "$ERR" >/dev/null
    # not answered on stderr instead
    assert_stderr_lacks '"result"'
    assert_frames
}

@test "fds: sockets for stdin and stdout (as Node-based clients give), with stdio reading" {
    JUNK=(printf-junk puts-junk write-junk system-junk)
    init_ping_diverted --sockets -- "$SRV" getline printf puts write system
}

@test "fds: a low RLIMIT_NOFILE (64): the private descriptors fit under it" {
    JUNK=(printf-junk write-junk)
    init_diverted --nofile 64 -- "$SRV" read printf write
}

@test "fds: RLIMIT_NOFILE 4 (one free descriptor; library preloaded directly: sh needs fd 10)" {
    JUNK=(printf-junk write-junk)
    STDIOGATE_WRAPPER= init_diverted --nofile 4 -- "$SRV" read printf write
}

# dash keeps the wrapper script at fd 10 and its `.` and saved redirections
# at 11 and up: under a limit of 12 or 13 the wrapper must still start the
# server, with no word of the shell's on stderr (unwrapped it runs at 4).
@test "fds: RLIMIT_NOFILE 12 and 13 through the wrapper: the server runs, no shell error on stderr" {
    JUNK=(printf-junk write-junk)
    local n
    for n in 12 13; do
        init_diverted --nofile "$n" -- "$SRV" read printf write
        if grep -q 'open files\|stdiogate: [0-9]*:' "$ERR"; then
            echo "RLIMIT_NOFILE $n: a shell error on stderr" >&2; show_run; return 1
        fi
    done
}

@test "fds: stderr open read-only: junk to /dev/null; regular files as stdin and wire (gate_run)" {
    printf '%s\n' "$INIT" "$PING" >"$BATS_TEST_TMPDIR/in"
    printf 'read-only\n' >"$BATS_TEST_TMPDIR/ro"
    "$SRV" read printf write <"$BATS_TEST_TMPDIR/in" >"$OUT" 2>/dev/null
    assert_stdout_has printf-junk write-junk
    status=0
    gate_run "$SRV" read printf write <"$BATS_TEST_TMPDIR/in" >"$OUT" 2<"$BATS_TEST_TMPDIR/ro" || status=$?
    assert_status 0
    [ "$(cat "$BATS_TEST_TMPDIR/ro")" = read-only ]
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "fds: stdin and stdout one socket (socat EXEC / inetd style)" {
    JUNK=(printf-junk write-junk)
    init_ping_diverted --one-socket -- "$SRV" read printf write
}

@test "fds: stdin and stdout one socket, Node server" {
    JUNK=(node-top-junk)
    init_ping_diverted --one-socket -- node "$FIX/core_node_server.js" top
}

@test "fds: stderr a regular file (2>>log): C server" {
    JUNK=(printf-junk write-junk system-junk)
    init_ping_diverted --stderr-file -- "$SRV" read printf write system
}

@test "fds: stderr a regular file: Node (stdout first seen as a file, then a pipe)" {
    JUNK=(node-top-junk)
    init_ping_diverted --stderr-file -- node "$FIX/core_node_server.js" top
}

@test "fds: stderr a regular file: Python" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk)
    init_diverted --stderr-file -- "$PYTHON" "$FIX/core_py_server.py" readline
}

@test "fds: once the gate is open no private descriptor is left behind" {
    ungated --line "$INIT" -- "$SRV" read printf fdsafter
    assert_stderr_has "fds>=3 after serving: 0"
    gated --line "$INIT" -- "$SRV" read printf fdsafter
    assert_status 0
    assert_stderr_has printf-junk "fds>=3 after serving: 0"
    assert_frames "$(answer 0 initialize)"
}

@test "fds: run by hand in a terminal (stdin, stdout and stderr the same pty): junk to /dev/null" {
    export -f gate_run
    cmd=$(printf '%q ' gate_run "$SRV" fgets printf write system)
    status=0
    printf '%s\n' "$INIT" | STDIOGATE_DEBUG=2 SHELL=/bin/bash timeout 20 script -qec "$cmd" /dev/null >"$BATS_TEST_TMPDIR/pty" || status=$?
    assert_status 0
    tr -d '\r' <"$BATS_TEST_TMPDIR/pty" >"$BATS_TEST_TMPDIR/pty.lf"
    grep -qF "diverting stdout to /dev/null" "$BATS_TEST_TMPDIR/pty.lf"
    grep -qxF "$(answer 0 initialize)" "$BATS_TEST_TMPDIR/pty.lf"
    if grep -qF -e printf-junk -e write-junk -e system-junk "$BATS_TEST_TMPDIR/pty.lf"; then
        echo "junk reached the terminal:" >&2; cat -v "$BATS_TEST_TMPDIR/pty" >&2; false
    fi
    # and without stdiogate the junk is there
    cmd=$(printf '%q ' "$SRV" fgets printf write system)
    printf '%s\n' "$INIT" | SHELL=/bin/bash timeout 20 script -qec "$cmd" /dev/null >"$BATS_TEST_TMPDIR/pty"
    grep -qF printf-junk "$BATS_TEST_TMPDIR/pty"
}

# dup3(old, new, O_CLOEXEC) (Python's os.dup2(fd, n, inheritable=False))
# makes a close-on-exec copy: the library's dup3 passes the flag on, before
# the gate and after (a copy of the wire that a child inherited would keep
# the client's stdout open; ind5-fds-dup3-flags-lost).  The server records
# each copy's close-on-exec flag; wrapped and unwrapped must agree.
@test "fds: dup3(fd, N, O_CLOEXEC) copies of stdout and stderr stay close-on-exec, before and after the gate; dup2 copies inheritable" {
    cd "$BATS_TEST_TMPDIR"
    cat >dup3.py <<'PY'
import os, sys
def note(when):
    for fd, inh in ((1, False), (2, False), (1, True)):
        n = os.dup2(fd, 50, inheritable=inh)
        print(when, fd, inh, os.get_inheritable(n), file=rec)
        os.close(n)
rec = open(sys.argv[1], "w")
note("before")
line = sys.stdin.readline()
note("after")
rec.close()
i = line.index('"id":') + 5
sys.stdout.write('{"jsonrpc":"2.0","id":' + line[i:line.index("}", i)] + ',"result":{}}\n')
sys.stdout.flush()
PY
    ungated --line "$INIT" -- "$PYTHON" dup3.py plain.txt
    assert_status 0
    # unwrapped: an inheritable=False copy is close-on-exec (the test can fail)
    grep -qx 'before 1 False False' plain.txt && grep -qx 'after 1 True True' plain.txt ||
        { cat plain.txt >&2; return 1; }
    gated --line "$INIT" -- "$PYTHON" dup3.py wrapped.txt
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","id":0,"result":{}}'
    diff plain.txt wrapped.txt >&2
}

# A copy of stdout taken before the first message, then close_range: a
# range that only marks descriptors close-on-exec (CLOSE_RANGE_CLOEXEC, done
# before spawning helpers) leaves the copy open, and it follows fd 1 onto the
# wire; a range that ends exactly at the copy closes it, and a file the
# program then opens on that number is the program's (its bytes in the
# file, at once: not held as if they might begin an answer).
RANGES='import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.close_range.argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.c_int]
def closed_range(first, last, flags):
    if libc.close_range(first, last, flags) != 0:
        sys.exit("close_range: errno %d" % ctypes.get_errno())
os.write(1, b"startup-junk\n")
out = os.dup(1)
if sys.argv[1] == "cloexec":
    closed_range(3, 0xFFFFFFFF, 4)      # CLOSE_RANGE_CLOEXEC
else:
    closed_range(out, out, 0)
    f = os.open(sys.argv[2], os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    assert f == out, (f, out)
    os.write(f, b"{\"cache\":1}")
    os.write(2, b"read back: " + os.pread(f, 100, 0) + b"\n")
    os.close(f)
    out = 1
line = sys.stdin.readline()
os.write(1, b"serving-junk\n")
os.write(out, b"{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n" % json.loads(line)["id"])'

@test "fds: a copy of stdout, then close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) before serving: the copy stays a copy and answers on the wire" {
    cd "$BATS_TEST_TMPDIR"
    printf '%s\n' "$RANGES" >ranges.py
    ungated --line "$INIT" -- "$PYTHON" ranges.py cloexec
    assert_status 0
    assert_stdout_bytes $'startup-junk\nserving-junk\n{"jsonrpc":"2.0","id":0,"result":{}}\n'
    gated --timeout 30 --line "$INIT" -- "$PYTHON" ranges.py cloexec
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","id":0,"result":{}}'
    assert_stderr_bytes $'startup-junk\nserving-junk\n'
}

@test "fds: a copy of stdout closed by close_range(N, N, 0) before serving, a file opened on N: the file's bytes reach the file at once" {
    cd "$BATS_TEST_TMPDIR"
    printf '%s\n' "$RANGES" >ranges.py
    ungated --line "$INIT" -- "$PYTHON" ranges.py last plain.json
    assert_status 0
    assert_stderr_bytes $'read back: {"cache":1}\n'
    [ "$(cat plain.json)" = '{"cache":1}' ]
    gated --timeout 30 --line "$INIT" -- "$PYTHON" ranges.py last wrapped.json
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","id":0,"result":{}}'
    # (the diverted startup line and the direct one in either order)
    [ "$(LC_ALL=C sort "$ERR")" = $'read back: {"cache":1}\nserving-junk\nstartup-junk' ] || { show_run; false; }
    cmp plain.json wrapped.json
}

# Before the first message, with stderr a pipe, the library keeps the read
# end of the diversion's pipe until a helper needs it (the lazy drain): a
# close of every descriptor from 3 up must leave it open, or the fork and
# the system() that follow start the helper on a closed descriptor and
# their output is lost (ind5-fds-close-range-drain-missed).
@test "fds: close_range(3, ~0U, 0) or closefrom(3) before serving, then a forked child's and system()'s output: to stderr" {
    local how
    for how in close_range closefrom; do
        JUNK=(write-junk forkchild-junk system-junk)
        init_diverted -- "$SRV" read write "$how" forkchild system
        assert_stderr_lacks "cannot start"
    done
}
