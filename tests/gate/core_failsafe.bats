#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The fail-safe: a server whose reads stdiogate cannot see (raw system calls,
# a worker process that never reads stdin) still gets its answers to the
# client.  A complete answer written to the diversion opens the gate; junk
# written before it in the same call stays off the wire.  Programs that
# neither reads nor writes can be seen in (Bun) are left alone, with a
# warning.  Every wait is bounded (client.py --timeout): before the
# fail-safe, these servers hung their client.

load ../helpers
bats_require_minimum_version 1.5.0

FS=$BIN/core_failsafe
WARNING="the server answered before stdiogate saw the client's first message end"
LSP_SHUTDOWN='{"jsonrpc":"2.0","id":2,"method":"shutdown"}'

# gated_both CLIENT-OPTION... -- ARG...: core_failsafe ARG... unwrapped and
# gated (level 2, 10 s): it exits 0, $JUNK reaches stderr; the caller
# asserts the rest.
gated_both() {
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    both "${opts[@]}" -- "$FS" "$@"
    STDIOGATE_DEBUG=2 gated --timeout 10 "${opts[@]}" -- "$FS" "$@"
    assert_status 0
    assert_junk_on_stderr
}

# failsafe HOW CALL [CLIENT-OPTION...]: core_failsafe answering that way,
# unwrapped (junk on stdout) and wrapped (junk on stderr, answers on the wire,
# the gate opened by CALL).
failsafe() {
    local how=$1 call=$2; shift 2
    gated_both "$@" --line "$INIT" --line "$PING" -- "$how"
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_stderr_has "diverting stdout to stderr" "gate opened by $call: the server answered"
    # and no byte of an answer went to stderr as well
    assert_stderr_lacks '"result"' 'initialize"}}'
}

@test "fail-safe: a server reading with syscall(SYS_read), answering with write(2)" {
    JUNK=(printf-junk write-junk)
    failsafe write write
}

@test "fail-safe: the same on sockets (as Node clients start servers)" {
    JUNK=(printf-junk write-junk)
    failsafe write write --sockets
}

@test "fail-safe: a server reading a socket stdin with recvmmsg (not interposed): the answers open the gate" {
    JUNK=(printf-junk write-junk)
    CORE_FAILSAFE_READ=recvmmsg failsafe write write --sockets
}

@test "fail-safe: the level-1 warning comes once, at the default level" {
    gated --timeout 10 --line "$INIT" --line "$PING" -- "$FS" write
    assert_status 0
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    [ "$(grep -cF -- "$WARNING" "$ERR")" = 1 ] || { echo "warning not exactly once" >&2; show_run; false; }
    assert_stderr_has "or use --strict" "STDIOGATE_OPEN=1"
    assert_stderr_lacks "gate opened by"
}

@test "fail-safe: junk and the answer in one write are split" {
    JUNK=(printf-junk write-junk glue-junk)
    failsafe glue write
    # the junk of that write reached stderr whole, before the gate opened
    assert_stderr_has $'glue-junk\n'
}

@test "fail-safe: writev with the junk in one iovec and the answer in the next" {
    JUNK=(printf-junk write-junk writev-junk)
    failsafe writev writev
}

@test "fail-safe: an answer on a copy of fd 1 (dup)" {
    JUNK=(printf-junk write-junk dup-junk)
    failsafe dup write
}

@test "fail-safe: send(2) on a socket stdout" {
    JUNK=(printf-junk write-junk)
    failsafe send send --sockets
}

@test "fail-safe: sendmsg(2) with the junk in one iovec and the answer in the next" {
    JUNK=(printf-junk write-junk sendmsg-junk)
    failsafe sendmsg sendmsg --sockets
}

# pieces MODE HOW [CLIENT-OPTION...]: core_failsafe writing its answers in
# pieces (HOW), unwrapped (the junk on stdout, the test can fail), then
# under stdiogate (MODE default) or stdiogate --strict (MODE strict): the
# junk on stderr, and stdout exactly the answers (the caller asserts them).
# The default mode must have opened the gate at the answer, whole.
pieces() {
    local mode=$1 how=$2; shift 2
    both "$@" -- "$FS" "$how"
    assert_status 0
    if [ "$mode" = strict ]; then
        printf '#!/bin/sh\nexec "%s" --strict "$@"\n' "$ROOT/stdiogate" >"$BATS_TEST_TMPDIR/strict"
        chmod +x "$BATS_TEST_TMPDIR/strict"
        STDIOGATE_WRAPPER=$BATS_TEST_TMPDIR/strict STDIOGATE_DEBUG=2 gated --timeout 20 "$@" -- "$FS" "$how"
        assert_stderr_lacks "diverting stdout"
    else
        STDIOGATE_DEBUG=2 gated --timeout 20 "$@" -- "$FS" "$how"
        assert_stderr_has "diverting stdout to stderr" "gate opened by write: the server answered"
    fi
    assert_status 0
    assert_junk_on_stderr
    # no byte of an answer went to stderr as well
    assert_stderr_lacks '"result"' '"id"' 'Content-Length'
}

@test "fail-safe: an LSP answer written as header, then body (pipes, sockets; default and strict)" {
    local mode sock
    JUNK=(printf-junk write-junk)
    for mode in default strict; do
        for sock in "" --sockets; do
            pieces "$mode" headbody $sock --framing lsp --lsp "$LSP_INIT" --lsp "$LSP_SHUTDOWN"
            assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")$(lsp_frame "$(answer 2 shutdown)")"
        done
    done
    # the framing fixed (--protocol framed): the classifier passes a frame
    # at its header, and the fail-safe reads the body for the proof itself
    local -x STDIOGATE_PROTOCOL=framed
    pieces default headbody --framing lsp --lsp "$LSP_INIT" --lsp "$LSP_SHUTDOWN"
    assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")$(lsp_frame "$(answer 2 shutdown)")"
}

@test "fail-safe: a JSON-RPC answer in two writes (cut after its id), byte by byte; an LSP one byte by byte (default and strict)" {
    local mode how
    JUNK=(printf-junk write-junk)
    for mode in default strict; do
        for how in split bytes; do
            pieces "$mode" $how --line "$INIT" --line "$PING"
            assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
        done
        pieces "$mode" bytes --framing lsp --lsp "$LSP_INIT"
        assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")"
    done
}

@test "fail-safe: an answer glued after junk on its line is split off it (default and strict)" {
    local mode
    JUNK=(printf-junk write-junk "progress 50%")
    for mode in default strict; do
        # (unwrapped, a client sees no frame in the glued line: it waits for the other)
        pieces "$mode" inline --frames 1 --line "$INIT" --line "$PING"
        assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
        # the junk reached stderr whole, its newline-less end included
        assert_stderr_has "write-junk
progress 50%"
    done
}

@test "fail-safe: a 1 MiB first answer written in pieces by a non-blocking writer (default and strict)" {
    local mode big
    JUNK=(printf-junk write-junk)
    big=$(printf '{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize","pad":"%01048576d"}}' 0)
    for mode in default strict; do
        pieces "$mode" big --line "$INIT" --line "$PING"
        assert_stdout_bytes "$big
$(answer '"p1"' ping)
"
    done
}

# slow_client WANT PAUSE COMMAND...: a client whose wire is one page: it
# sends INIT, leaves the wire full for PAUSE seconds once the answer has
# begun to arrive (the scenario, not a synchronisation), reads the line
# holding "pad" (the big answer) whole, then sends PING; stdout must be the
# file WANT byte for byte, COMMAND's stderr goes to the file err
slow_client() {
    cat >"$BATS_TEST_TMPDIR/slow_client.py" <<'PY'
import fcntl, os, select, subprocess, sys, time
want, pause, init, ping, argv = (open(sys.argv[1], "rb").read(), float(sys.argv[2]), sys.argv[3].encode(),
                                 sys.argv[4].encode(), sys.argv[5:])
p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open("err", "wb"))
fcntl.fcntl(p.stdout, 1031, 4096)   # F_SETPIPE_SZ: a wire of one page
p.stdin.write(init + b"\n"); p.stdin.flush()
if not select.select([p.stdout], [], [], 60)[0]:
    sys.exit("timeout: nothing on stdout")
time.sleep(pause)
out, deadline = b"", time.monotonic() + 30
def read_to(n):
    global out
    while len(out) < n:
        t = deadline - time.monotonic()
        if t <= 0 or not select.select([p.stdout], [], [], t)[0]:
            sys.exit("timeout: %d of %d bytes on stdout, ending %r" % (len(out), n, out[-60:]))
        b = os.read(p.stdout.fileno(), 1 << 20)
        if not b:
            break
        out += b
read_to(want.index(b"\n", want.index(b'"pad"')) + 1)
p.stdin.write(ping + b"\n"); p.stdin.close()
read_to(1 << 30)
assert p.wait(30) == 0
if out != want:
    sys.exit("stdout: %d bytes, want %d; %r ... %r" % (len(out), len(want), out[:60], out[-80:]))
PY
    local want=$1 pause=$2
    shift 2
    "$PYTHON" "$BATS_TEST_TMPDIR/slow_client.py" "$want" "$pause" "$INIT" "$PING" "$@"
}

# A client slower than the stall bound (stall.h, SG_STALL_MS: 5 s) while the
# answer that opened the gate (1 MiB in one write: core_failsafe bigone)
# goes onto a full non-blocking wire: the
# library waits for the client as the server would, however long; only the
# diversion's writes are bounded.  The client reads nothing for 7 s once
# the answer has begun to arrive (the scenario, not a synchronisation).
@test "fail-safe: a 1 MiB first answer to a client that reads nothing for longer than the stall bound arrives whole" {
    local big
    big=$(printf '{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize","pad":"%01048576d"}}' 0)
    cd "$BATS_TEST_TMPDIR"
    # unwrapped (the junk on stdout) and wrapped (on stderr)
    # (printf-junk stays in stdio's buffer until exit)
    printf 'write-junk\n%s\n%s\nprintf-junk\n' "$big" "$(answer '"p1"' ping)" >want
    slow_client want 7 "$FS" bigone
    [ ! -s err ]
    printf '%s\n%s\n' "$big" "$(answer '"p1"' ping)" >want
    slow_client want 7 "$ROOT/stdiogate" "$FS" bigone
    [ "$(grep -v '^stdiogate\[' err)" = "write-junk"$'\n'"printf-junk" ] || { cat err; false; }
    grep -qF "$WARNING" err
}

# The same wait interrupted by signals (ind11-write-whole-poll-eintr): the
# answer that opens the gate (core_failsafe alarm: 60000 bytes in one
# write(2) on a non-blocking fd 1, SIGALRM every 5 ms with an empty handler
# and no SA_RESTART while it writes) goes onto a wire of one page that the
# client leaves full for 1 s once the answer has begun to arrive (the
# scenario, not a synchronisation): each SIGALRM ends the library's poll()
# with EINTR, which is no reason to stop.  The client gets the whole answer,
# then the ping's; the junk is on stderr.
@test "fail-safe: the first answer onto a full non-blocking wire while SIGALRM interrupts the wait arrives whole" {
    local big pong
    big=$(printf '{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize","pad":"%060000d"}}' 0)
    pong=$(answer '"p1"' ping)
    cd "$BATS_TEST_TMPDIR"
    # unwrapped (the junk on stdout: printf-junk stays in stdio's buffer until exit)
    printf 'write-junk\n%s\n%s\nprintf-junk\n' "$big" "$pong" >want
    slow_client want 1 "$FS" alarm
    [ ! -s err ]
    printf '%s\n%s\n' "$big" "$pong" >want
    slow_client want 1 "$ROOT/stdiogate" "$FS" alarm
    [ "$(grep -v '^stdiogate\[' err)" = "write-junk"$'\n'"printf-junk" ] || { cat err; false; }
    grep -qF "$WARNING" err
}

@test "fail-safe: held bytes that never become an answer reach stderr whole at exit and at _exit" {
    local part='{"jsonrpc":"2.0","id":1,"res' how
    for how in "sys.exit(0)" "os._exit(0)"; do
        # a '{' that never closes, then the end of the process
        run --separate-stderr "$PYTHON" -c "import os, sys; os.write(1, b'$part'); $how" </dev/null
        [ "$status" -eq 0 ] && [ "$output" = "$part" ]
        STDIOGATE_DEBUG=2 run --separate-stderr "$ROOT/stdiogate" "$PYTHON" -c \
            "import os, sys; os.write(1, b'$part'); $how" </dev/null
        echo "$how: status $status, stdout '$output', stderr: $stderr"
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        [[ "$stderr" == *"$part"* ]]
        [[ "$stderr" != *"gate opened"* ]]
    done
}

@test "fail-safe: a fork child does not write out what its parent holds" {
    local part='{"jsonrpc":"2.0","id":1,"res'
    local prog="import os, sys
os.write(1, b'$part')
pid = os.fork()
if pid == 0:
    sys.exit(0)
os.waitpid(pid, 0)
os.write(1, b'-parent-end\n')"
    run --separate-stderr "$PYTHON" -c "$prog" </dev/null
    [ "$status" -eq 0 ] && [ "$output" = "$part-parent-end" ]
    run --separate-stderr "$ROOT/stdiogate" "$PYTHON" -c "$prog" </dev/null
    echo "status $status, stdout '$output', stderr: $stderr"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    # once, and whole, with the rest of its line (decided junk when the line ended)
    [ "$(grep -c . <<<"$stderr")" -eq 1 ]
    [ "$stderr" = "$part-parent-end" ]
}

@test "fail-safe: C stdio, fflush(stdout) of a buffer holding junk and then the answer" {
    JUNK=(printf-junk write-junk)
    failsafe stdio fflush
}

@test "fail-safe: C stdio, answers left in stdout's buffer until exit" {
    JUNK=(printf-junk write-junk)
    gated_both --frames 0 --line "$INIT" --line "$PING" -- exit
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_stderr_has "gate opened by exit: the server answered"
    assert_stderr_lacks '"result"'
}

@test "fail-safe: what follows the answer in the same write reaches the wire in order" {
    # the first answer and the first 9 bytes of a notification in one write,
    # the rest of the notification in the next
    JUNK=(printf-junk write-junk)
    gated_both --frames 3 --line "$INIT" --line "$PING" -- follow
    assert_frames "$(answer 0 initialize)" '{"jsonrpc":"2.0","method":"note"}' "$(answer '"p1"' ping)"
    assert_stderr_lacks '"result"' '"note"'
}

# lsp_answer MODE CALL: the fail-safe server writes printf and write junk,
# then MODE-junk and an LSP Content-Length answer by CALL; only the answer
# reaches the wire, byte for byte.
lsp_answer() {
    JUNK=(printf-junk write-junk "$1-junk")
    gated_both --framing lsp --lsp "$LSP_INIT" -- "$1" lsp
    assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")"
    assert_stderr_lacks '"result"' Content-Length
    assert_stderr_has "gate opened by $2: the server answered"
}

@test "fail-safe: an LSP Content-Length answer, junk glued before it" { lsp_answer glue write; }

@test "fail-safe: an LSP answer by writev, header and body in separate iovecs after the junk" { lsp_answer writev writev; }

@test "fail-safe: the answer recogniser (detect.h) on fixed cases" {
    run "$BIN/core_answer_check"
    [ "$status" -eq 0 ] || { echo "$output" >&2; false; }
}

@test "fail-safe: a notification written before the first message opens nothing" {
    # core_srv's "fdreport" step writes a JSON-RPC notification on stdout at
    # start: it is no answer, so it stays on stderr and the gate waits for
    # the read, as before
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$BIN/core_srv" read fdreport write
    assert_status 0
    assert_stderr_has '"method":"fds"' write-junk "gate opened by read after"
    assert_stderr_lacks "the server answered"
    assert_frames "$(answer 0 initialize)"
}

# The same with a notification whose params hold "id" and "result" (a job's
# progress carrying its result), on one line before the first message: the
# names of a nested object are not the message's, so it is no answer either
# (ind7-line-common-name-any-depth: taken for one, it opened the gate and
# reached the client, with the level-1 warning).
@test "fail-safe: a notification whose params hold \"id\" and \"result\", written before the first message, opens nothing" {
    cd "$BATS_TEST_TMPDIR"
    local note='{"jsonrpc":"2.0","method":"progress","params":{"id":7,"result":{}}}'
    cat >note_srv.py <<PY
import os, sys
os.write(1, b'$note\n')
line = sys.stdin.readline()
os.write(1, b'{"jsonrpc":"2.0","id":0,"result":{}}\n')
PY
    ungated --line "$INIT" -- "$PYTHON" note_srv.py
    assert_status 0
    assert_stdout_bytes "$note"$'\n''{"jsonrpc":"2.0","id":0,"result":{}}'$'\n'
    gated --line "$INIT" -- "$PYTHON" note_srv.py
    assert_status 0
    assert_stdout_bytes '{"jsonrpc":"2.0","id":0,"result":{}}'$'\n'
    assert_stderr_bytes "$note"$'\n'
}

@test "fail-safe: behind a launcher (sh -c 'echo; exec SERVER')" {
    JUNK=(sh-junk printf-junk write-junk)
    both --line "$INIT" --line "$PING" -- sh -c 'echo sh-junk; exec "$0" write' "$FS"
    STDIOGATE_DEBUG=2 gated --timeout 10 --line "$INIT" --line "$PING" -- sh -c 'echo sh-junk; exec "$0" write' "$FS"
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_stderr_has "exec: handing the wire to" "gate opened by write: the server answered"
    assert_stderr_lacks '"result"'
}

# --- process pairs: only the parent reads stdin, a worker answers

@test "fail-safe: Node, a child_process.fork worker answers for its parent" {
    JUNK=(node-parent-junk node-worker-junk)
    both --line "$INIT" --line "$PING" -- node "$FIX/core_node_fork.js"
    STDIOGATE_DEBUG=2 gated --timeout 20 --line "$INIT" --line "$PING" -- node "$FIX/core_node_fork.js"
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_stderr_has "gate opened by read after" "the server answered"
    assert_stderr_lacks '"result"'
}

@test "fail-safe: Node fork worker on sockets" {
    JUNK=(node-parent-junk node-worker-junk)
    both --sockets --line "$INIT" --line "$PING" -- node "$FIX/core_node_fork.js"
    gated --timeout 20 --sockets --line "$INIT" --line "$PING" -- node "$FIX/core_node_fork.js"
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "fail-safe: Python, a multiprocessing worker (fork) started before the first message answers" {
    JUNK=(py-parent-junk py-worker-junk)
    both --line "$INIT" --line "$PING" -- "$PYTHON" "$FIX/core_py_mpworker.py"
    STDIOGATE_DEBUG=2 gated --timeout 20 --line "$INIT" --line "$PING" -- "$PYTHON" "$FIX/core_py_mpworker.py"
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_stderr_has "the server answered"
    assert_stderr_lacks '"result"'
}

# --- Bun: neither its reads nor its writes can be seen

BUN_WARNING="Bun program: not diverting (it reads stdin and writes stdout with raw system calls)"

# The Bun binary from tests/node_modules: bin/bun.exe once its postinstall has
# run, else the platform package's (npm ci --ignore-scripts).
bun_binary() {
    local b
    for b in "$TESTS"/node_modules/bun/bin/bun.exe "$TESTS"/node_modules/@oven/bun-linux-*/bin/bun; do
        if [ -x "$b" ] && "$b" --version >/dev/null 2>&1; then
            echo "$b"
            return 0
        fi
    done
    echo "no working Bun in $TESTS/node_modules (make npm-deps)" >&2
    return 1
}

# stepped_aside CLIENT-OPTION... -- CMD...: with --gate-only (by default the
# wrapper runs a Bun program under the filter: tests/strict/strict_auto.bats), the
# same stdout wrapped as unwrapped (the junk included: never worse), and the
# library's warning.
stepped_aside() {
    local -x STDIOGATE_AUTO_STRICT=0
    both "$@"
    cp "$OUT" "$BATS_TEST_TMPDIR/unwrapped"
    STDIOGATE_DEBUG=2 gated --timeout 20 "$@"
    assert_status 0
    assert_stderr_has "$BUN_WARNING" "use --strict"
    cmp "$BATS_TEST_TMPDIR/unwrapped" "$OUT" || { echo "stdout differs from the unwrapped run" >&2; show_run; false; }
}

@test "Bun mark: a program with sections .bun and .bun_builtins is left alone, with a warning (--gate-only)" {
    readelf -SW "$BIN/core_bun_fake" | grep -q ' \.bun '
    readelf -SW "$BIN/core_bun_fake" | grep -q ' \.bun_builtins '
    JUNK=(write-junk)
    stepped_aside --line "$INIT" -- "$BIN/core_bun_fake" read write
    assert_stdout_has write-junk
    assert_stderr_lacks "diverting stdout"
}

@test "Bun mark: started by a shell the wrapper ran (the marker's ',seen' is the shell's alone), a Bun program is still left alone (--gate-only)" {
    JUNK=(write-junk)
    stepped_aside --line "$INIT" -- sh -c 'exec "$0" read write' "$BIN/core_bun_fake"
    assert_stdout_has write-junk
    assert_stderr_has "diverting stdout"
}

@test "Bun mark: a program whose stdout is not the wire is not warned about" {
    # stdout of the fake is a pipe to cat, not the wire the marker names
    run bash -c 'STDIOGATE_WIRE=1:1 LD_PRELOAD="$STDIOGATE_LIB" "$1" none write | cat' _ "$BIN/core_bun_fake"
    [ "$status" -eq 0 ]
    [[ "$output" != *"Bun program"* ]]
}

@test "real Bun: the binary from npm carries the mark" {
    local bun; bun=$(bun_binary)
    readelf -SW "$bun" | grep -q ' \.bun '
    readelf -SW "$bun" | grep -q ' \.bun_builtins '
}

@test "real Bun on a pipe: stepped aside, answers on the wire (--gate-only)" {
    local bun; bun=$(bun_binary)
    JUNK=(bun-junk)
    stepped_aside --line "$INIT" --line "$PING" -- "$bun" "$FIX/core_bun_server.js"
    assert_stdout_has "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "real Bun on a socket: stepped aside, answers on the wire (--gate-only)" {
    local bun; bun=$(bun_binary)
    JUNK=(bun-junk)
    stepped_aside --sockets --line "$INIT" --line "$PING" -- "$bun" "$FIX/core_bun_server.js"
    assert_stdout_has "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "real Bun: a bun build --compile executable carries the mark and is stepped aside (--gate-only)" {
    local bun exe=$BATS_TEST_TMPDIR/bunsrv; bun=$(bun_binary)
    cp "$FIX/core_bun_server.js" "$BATS_TEST_TMPDIR/srv.js"
    cp "$FIX/core_lines.js" "$BATS_TEST_TMPDIR/"   # srv.js requires it
    # compiling a local file needs no network
    (cd "$BATS_TEST_TMPDIR" && timeout 120 "$bun" build --compile srv.js --outfile "$exe") >&2
    readelf -SW "$exe" | grep -q ' \.bun '
    readelf -SW "$exe" | grep -q ' \.bun_builtins '
    JUNK=(bun-junk)
    stepped_aside --line "$INIT" --line "$PING" -- "$exe"
    assert_stdout_has "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    rm -f "$exe"
}
