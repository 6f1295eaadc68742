#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 42: the stream on fd 1 is the process's, not a thread's.  Real
# servers write one message in pieces from more than one thread (tokio's
# stdout: the JSON and its newline on whichever worker runs the task;
# asyncio's executors; a non-blocking writer whose retry runs elsewhere),
# with signals blocked around a piece, or block on a full wire and expect a
# signal to interrupt them.  Each test runs the server unwrapped first (the
# junk on stdout: the test can fail), then under ./stdiogate: every answer
# on stdout whole and in order, byte for byte, the junk on stderr.

load ../helpers

GT=$BIN/guard_threads

setup() { [ -x "$GT" ] || { echo "make fixtures" >&2; return 1; }; }

# requests N: N ping requests, ids 1..N, as client options.
requests() {
    local i
    REQ=()
    for i in $(seq 1 "$1"); do REQ+=(--line "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"ping\"}"); done
}

# expected N SIZE: what guard_threads writes for N requests (JUNK_WANT,
# ANSWERS_WANT), its answers of SIZE x's.
expected() {
    local i x
    x=$(head -c "$2" /dev/zero | tr '\0' x)
    JUNK_WANT= ANSWERS_WANT= ALL_WANT=
    for i in $(seq 1 "$1"); do
        JUNK_WANT+="thread-junk $i"$'\n'
        ANSWERS_WANT+="{\"jsonrpc\":\"2.0\",\"id\":$i,\"result\":{\"text\":\"$x\"}}"$'\n'
        ALL_WANT+="thread-junk $i"$'\n'"{\"jsonrpc\":\"2.0\",\"id\":$i,\"result\":{\"text\":\"$x\"}}"$'\n'
    done
}

# pieces MODE N SIZE: N pipelined requests, answers of SIZE bytes written
# as MODE says; unwrapped: junk and answers; wrapped: answers only, junk on
# stderr.
pieces() {
    local mode=$1 n=$2 size=$3
    requests "$n"
    expected "$n" "$size"
    ungated --timeout 120 --frames "$n" "${REQ[@]}" -- "$GT" "$mode" "$size"
    assert_status 0
    assert_stdout_bytes "$ALL_WANT"
    gated --timeout 120 --frames "$n" "${REQ[@]}" -- "$GT" "$mode" "$size"
    assert_status 0
    assert_stdout_bytes "$ANSWERS_WANT"
    assert_stderr_bytes "$JUNK_WANT"
}

@test "threads: each answer's JSON by one thread, its newline by another (tokio's stdout, asyncio executors): every answer arrives whole" {
    pieces split 20 3000
}

@test "threads: answers larger than the pipe, fd 1 non-blocking, the rest after EAGAIN written by the other of two threads: every answer whole" {
    pieces nonblock 20 100000
}

# An answer's JSON in calls of its own (held: no newline yet), then its
# newline, on a non-blocking wire of one page: the wire takes the held bytes
# in part, the rest waits for the next calls, which return EAGAIN until it is
# out (the junk line of the next request among them).
@test "threads: answers held whole until their newline, on a non-blocking wire of one page: the held bytes the wire could not take wait, every answer whole" {
    requests 20
    expected 20 30000
    # (--frames 0: the client reads to the server's exit; a lost piece shows at once)
    ungated --timeout 120 --frames 0 "${REQ[@]}" -- "$GT" nbsplit 30000
    assert_status 0
    assert_stdout_bytes "$ALL_WANT"
    gated --timeout 120 --frames 0 "${REQ[@]}" -- "$GT" nbsplit 30000
    assert_status 0
    assert_stdout_bytes "$ANSWERS_WANT"
    assert_stderr_bytes "$JUNK_WANT"
}

@test "threads: another thread's whole message between an answer's JSON and its newline: both arrive whole (unwrapped, one corrupt line)" {
    local n=10 size=3000 i x want=
    requests "$n"
    expected "$n" "$size"
    ungated --timeout 120 --frames 0 "${REQ[@]}" -- "$GT" between "$size"
    assert_status 0
    x=$(head -c "$size" /dev/zero | tr '\0' x)
    # unwrapped: the notification lands inside the answer's line
    assert_stdout_has "$x\"}}{\"jsonrpc\":\"2.0\",\"method\":\"progress\",\"params\":{\"id\":1}}"
    for i in $(seq 1 "$n"); do
        want+="{\"jsonrpc\":\"2.0\",\"method\":\"progress\",\"params\":{\"id\":$i}}"$'\n'
        want+="{\"jsonrpc\":\"2.0\",\"id\":$i,\"result\":{\"text\":\"$x\"}}"$'\n'
    done
    gated --timeout 120 --frames $((2 * n)) "${REQ[@]}" -- "$GT" between "$size"
    assert_status 0
    assert_stdout_bytes "$want"
    assert_stderr_bytes "$JUNK_WANT"
}

@test "threads: 10,000 signal handler messages while an answer larger than the pipe is taken in part: the answer whole, then every message (the queue grows)" {
    local x note='{"jsonrpc":"2.0","method":"usr1"}' want notes
    x=$(head -c 1000000 /dev/zero | tr '\0' x)
    notes=$(for i in $(seq 10000); do printf '%s\n' "$note"; done)
    want="{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"$x\"}}"$'\n'"$notes"$'\n'
    ungated --timeout 120 --frames 0 --line '{"jsonrpc":"2.0","id":1,"method":"ping"}' -- "$GT" raise 1000000
    assert_status 0
    assert_stdout_has "xxx$note"            # unwrapped: inside the answer
    gated --timeout 120 --frames 10001 --line '{"jsonrpc":"2.0","id":1,"method":"ping"}' -- "$GT" raise 1000000
    assert_status 0
    assert_stdout_bytes "$want"
}

# The same in pieces: an answer past the 64 KiB bound (its line committed,
# the rest streaming) written 16 KiB at a time on a non-blocking wire, and
# after every write the wire took in part, messages from a signal handler
# (queued).  When a piece's rest is out, the answer is not: its next piece
# follows, so what waits goes out only once the answer's line has ended.
@test "threads: signal handler messages while an answer past 64 KiB is written in pieces the wire takes in part: every answer whole, every message after it" {
    local note='{"jsonrpc":"2.0","method":"usr1"}'
    requests 5
    ungated --timeout 120 --frames 0 "${REQ[@]}" -- "$GT" raisepieces 300000
    assert_status 0
    assert_stdout_has "xxx$note"            # unwrapped: inside an answer
    gated --timeout 120 --frames 0 "${REQ[@]}" -- "$GT" raisepieces 300000
    assert_status 0
    "$PYTHON" - "$OUT" "$ERR" <<'PY'
import json, re, sys
ids, notes = [], 0
for line in open(sys.argv[1], "rb"):
    m = json.loads(line)          # every line a whole message
    if m.get("method") == "usr1":
        notes += 1
    else:
        assert len(m["result"]["text"]) == 300000
        ids.append(m["id"])
raised = int(re.search(r"^raised: (\d+)$", open(sys.argv[2]).read(), re.M).group(1))
assert ids == [1, 2, 3, 4, 5], ids
assert raised > 0 and notes == raised, (notes, raised)
PY
}

@test "threads: one thread, the newline written with a signal blocked (pthread_sigmask): not taken for a signal handler's message" {
    pieces sigmask 20 3000
}

# interrupted HOW: the server fills the wire (a client that never reads),
# then blocks writing an answer with SIGALRM (no SA_RESTART) due in 1 s: the write must
# come back interrupted (EINTR, or short) and the server end with status 3,
# wrapped as unwrapped; 124 is timeout's: the server stayed blocked.
interrupted() {
    local how=$1 run
    cd "$BATS_TEST_TMPDIR"
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' >req
    for run in unwrapped wrapped; do
        rm -f wire
        mkfifo wire
        exec 5<>wire            # the client: holds the read end, reads nothing
        status=0
        local cmd=("$GT" alarm "$how" 3000)
        [ "$how" = python ] && cmd=(env PYTHONUNBUFFERED=1 "$PYTHON" "$FIX/guard_alarm.py")
        if [ $run = unwrapped ]; then
            timeout 60 "${cmd[@]}" <req >wire 2>err || status=$?
        else
            timeout 60 "$ROOT/stdiogate" "${cmd[@]}" <req >wire 2>err || status=$?
        fi
        exec 5<&-
        [ "$status" = 3 ] || { echo "$run ($how): status $status, not 3; stderr: $(head -c 300 err)" >&2; return 1; }
        grep -qx interrupted err || { echo "$run ($how): no 'interrupted'" >&2; return 1; }
        # the JSON the library took before the newline failed: junk at exit,
        # on stderr (not the wire's to write later)
        if [ $run = wrapped ] && { [ "$how" = split ] || [ "$how" = python ]; }; then
            grep -q '^{"jsonrpc":"2.0","id":1,"result":{"text":"xxx' err ||
                { echo "wrapped (split): the held JSON did not reach stderr" >&2; return 1; }
        fi
    done
}

@test "threads: a write blocked on a full wire is interrupted by a signal without SA_RESTART, as unwrapped (write, the JSON and its newline, C stdio, Python's print with a handler)" {
    row_table interrupted write split stdio python
}

# stuck_client MODE N CHECK: guard_threads MODE N, unwrapped and then under
# stdiogate, its stdout a FIFO whose reader (the client) reads nothing until
# the server has ended; each run must end with status 0, "giving up" on its
# stderr and the wire beginning with the answer; then CHECK RUN looks at the
# wire's bytes (./got) and stderr (./err).
stuck_client() {
    local mode=$1 n=$2 check=$3 run status
    cd "$BATS_TEST_TMPDIR"
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' >req
    for run in unwrapped wrapped; do
        rm -f wire got
        mkfifo wire
        exec 5<>wire            # the client: holds the read end, reads nothing until the end
        status=0
        if [ $run = unwrapped ]; then
            timeout 60 "$GT" "$mode" "$n" <req >wire 2>err || status=$?
        else
            timeout 60 "$ROOT/stdiogate" "$GT" "$mode" "$n" <req >wire 2>err || status=$?
        fi
        exec 6<wire 5<&-        # the wire's bytes, read once nobody can write more
        cat <&6 >got
        exec 6<&-
        [ "$status" = 0 ] || { echo "$run: status $status, not 0; stderr: $(head -c 300 err)" >&2; return 1; }
        grep -qx 'giving up' err || { echo "$run: no 'giving up'" >&2; return 1; }
        head -c 60 got | grep -q '^{"jsonrpc":"2.0","id":1,"result":{"text":"xxx' ||
            { echo "$run: the wire does not begin with the answer: $(head -c 80 got)" >&2; return 1; }
        "$check" "$run" || return 1
    done
}

# A signal handler's message queued behind an answer the wire took in part
# (a client that never reads), and the server exits without the rest of the
# answer: at exit the queue waits for the wire a bounded time (SG_STALL_MS,
# 5 s), then the server ends, status 0 as unwrapped (where the handler's
# write met EAGAIN); ind7-guard-queue-out-bound-swapped waited for ever
# there (timeout's 124).  Only the wire's first bytes of the answer are
# checked: nothing of the notification may be on it.
no_usr1() { ! grep -q usr1 got || { echo "$1: the handler's message on the wire" >&2; return 1; }; }

@test "threads: a signal handler's message queued behind an answer a stuck client took in part, and the server exits: it ends (bounded wait), status 0 as unwrapped, the message not spliced into the answer" {
    stuck_client giveup 300000 no_usr1
}

# The JSON of an answer held by the guard (no newline yet), its newline
# written on a non-blocking wire that takes only part of the held bytes
# (a 4 KiB pipe, a client that never reads): the rest is pending, the
# newline's write fails with EAGAIN, and the server gives up and exits.
# At exit the pending end waits for the wire a bounded time (SG_STALL_MS,
# 5 s), says it was lost, and the server ends, status 0 as unwrapped (not
# timeout's 124: waiting for ever for a client that never reads).
part_only() { [ "$(wc -c <got)" -lt 20000 ] || { echo "$1: the whole answer reached the wire" >&2; return 1; }; }

@test "threads: an answer's JSON held, its newline refused by a stuck client (EAGAIN), and the server exits: it ends (bounded wait), status 0 as unwrapped, the loss said" {
    stuck_client giveupheld 20000 part_only
    grep -q '^stdiogate\[[0-9]*\]: guard: the client took nothing for 5 s: the end of a message was lost at exit$' err ||
        { echo "wrapped: the loss not said: $(head -c 300 err)" >&2; return 1; }
}

# tokio-writer (tests/sdk/rust/src/bin): a real tokio 1.x server.
TOKIO=$ROOT/build/sdk/bin/tokio-writer

# writer_case JUNK CMD...: CMD (a server of the tests/sdk or tests/real
# tool chains) answers 20 pipelined requests, answers of 3,000 bytes, each
# after the junk line "JUNK ID"; unwrapped: junk and answers on stdout;
# wrapped: the answers, the junk on stderr.
writer_case() {
    local junk=$1 n=20 size=3000 i x want_all= want_answers= want_junk=
    shift
    requests "$n"
    x=$(head -c "$size" /dev/zero | tr '\0' x)
    for i in $(seq 1 "$n"); do
        want_junk+="$junk $i"$'\n'
        want_answers+="{\"jsonrpc\":\"2.0\",\"id\":$i,\"result\":{\"text\":\"$x\"}}"$'\n'
        want_all+="$junk $i"$'\n'"{\"jsonrpc\":\"2.0\",\"id\":$i,\"result\":{\"text\":\"$x\"}}"$'\n'
    done
    ungated --timeout 120 --frames "$n" "${REQ[@]}" -- "$@" "$size"
    assert_status 0
    assert_stdout_bytes "$want_all"
    gated --timeout 120 --frames "$n" "${REQ[@]}" -- "$@" "$size"
    assert_status 0
    assert_stdout_bytes "$want_answers"
    assert_stderr_bytes "$want_junk"
}

# tokio_case MODE: tokio-writer MODE.
tokio_case() {
    [ -x "$TOKIO" ] || { echo "make sdk-rust" >&2; return 1; }
    writer_case tokio-junk "$TOKIO" "$1"
}

@test "threads: a real tokio server writing through tokio::io::stdout() (JSON, newline, flush on the blocking pool): every answer whole" {
    tokio_case stdout
}

@test "threads: a real tokio server whose fd 1 is registered with AsyncFd (edge-triggered epoll) before the first request: every answer whole" {
    tokio_case asyncfd
}

# asyncio_case MODE PYTHON: tests/fixtures/guard_asyncio.py MODE under PYTHON.
asyncio_case() {
    writer_case asyncio-junk "$2" "$FIX/guard_asyncio.py" "$1"
}

@test "threads: a Python asyncio server writing on run_in_executor's threads (junk, JSON, newline): every answer whole" {
    asyncio_case executor "$PYTHON"
}

@test "threads: Python servers writing through anyio.wrap_file and aiofiles (anyio 4.16, aiofiles 25.1, pinned in tests/real): every answer whole" {
    local venv=$ROOT/build/real/py/venv/bin/python
    [ -x "$venv" ] || { echo "make real-python" >&2; return 1; }
    asyncio_case anyio "$venv"
    asyncio_case aiofiles "$venv"
}
