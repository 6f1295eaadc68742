#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The helper process of default mode (issue 21): `stdiogate-filter --drain`,
# started by the library, copies the diverted fd 1 to stderr.
#
# - No signal meant for the server reaches it: each signal a process group
#   gets, before the gate opens and after; the server behaves as unwrapped.
# - No message of the library's blocks the server: stderr a pipe that nobody
#   reads, already full, and a level-1 message on the server's path.
# - The helper never blocks in its own write: the server's own stderr writes
#   race it for the last room in a one-page stderr pipe whose reader stops.
# - Nothing left behind where pid 1 does not reap (unshare --pid, a pid 1
#   that waits only for its own child).

bats_require_minimum_version 1.5.0
load ../helpers
load ../helper_helpers

@test "helper: every signal to the process group before the gate opens: the server exits 0, its lines kept (default mode)" {
    for sig in $SIGNALS; do
        sig_case before "$sig" "$ROOT/stdiogate"
    done
}

@test "helper: every signal to the process group after the gate opened: the server exits 0, its junk line on stderr (default mode, the guard)" {
    for sig in $SIGNALS; do
        sig_case after "$sig" "$ROOT/stdiogate"
    done
}

@test "helper: every signal to the process group after the gate opened: the server exits 0, its lines on the wire (--gate-only)" {
    for sig in $SIGNALS; do
        sig_case after "$sig" "$ROOT/stdiogate" --gate-only
    done
}

@test "helper: stderr a full pipe nobody reads: no message of ours, at any level, blocks a fail-safe server; the client gets its answers" {
    # level 1: the library's fail-safe warning; 2 to 4: the wrapper's own
    # lines too (stdiogate-check's, before it execs COMMAND), and the filter's
    local ans ping wrap level
    ans=$(answer 0 initialize)
    ping=$(answer '"p1"' ping)
    for wrap in "1" "1 $ROOT/stdiogate" "2 $ROOT/stdiogate" "3 $ROOT/stdiogate" "4 $ROOT/stdiogate" \
                "2 $ROOT/stdiogate --strict"; do
        level=${wrap%% *}
        wrap=${wrap#"$level"}
        status=0
        result=$(STDIOGATE_DEBUG=$level timeout 60 "$PYTHON" "$FIX/strict_fault_client.py" --out "$OUT" --err "$ERR" \
            full-stderr -- $wrap "$BIN/core_failsafe" write) || status=$?
        [ "$status" -eq 0 ] || { echo "${wrap:-unwrapped} at level $level: client $status: $result" >&2; cat "$OUT" >&2; false; }
        [ "$result" = "status 0" ]
        if [ -z "$wrap" ]; then
            grep -qx "$ans" "$OUT"
            grep -qx "$ping" "$OUT"
            grep -q "write-junk" "$OUT"
        else
            [ "$(cat "$OUT")" = "$(printf '%s\n%s' "$ans" "$ping")" ] || { cat -A "$OUT" >&2; false; }
        fi
    done
}

@test "helper: stderr filled between the library's poll and its write (by another thread of the server's): no diagnostic of ours waits for room, the client gets its answers" {
    # say_race's own poll() fills stderr the first time a poll says stderr
    # has room (from the start, or once main() runs: level 4's lines on
    # each read while diverted go through the library's private handle), as
    # a thread writing stderr could between the poll and the write after
    # it; nobody reads stderr
    local ans ping case level from mark=$BATS_TEST_TMPDIR/filled
    ans=$(answer 0 initialize)
    ping=$(answer '"p1"' ping)
    for case in 0: 2: 3: 4:main; do
        level=${case%%:*} from=${case#*:}
        rm -f "$mark"
        local wrap=""
        [ "$level" = 0 ] || wrap=$ROOT/stdiogate
        status=0
        result=$(env SAY_RACE_MARK="$mark" ${from:+SAY_RACE_FROM=$from} STDIOGATE_DEBUG="$level" timeout 60 \
            "$PYTHON" "$FIX/strict_fault_client.py" --out "$OUT" --err "$ERR" quiet-stderr -- $wrap "$BIN/say_race") ||
            status=$?
        [ "$status" -eq 0 ] && [ "$result" = "status 0" ] || { echo "${wrap:-unwrapped} at level $level: client $status: $result" >&2; false; }
        [ "$(cat "$OUT")" = "$(printf '%s\n%s' "$ans" "$ping")" ] || { cat -A "$OUT" >&2; false; }
        if [ -z "$wrap" ]; then
            [ ! -e "$mark" ]            # unwrapped, nobody calls its poll
        else
            [ -e "$mark" ] || { echo "level $level: no diagnostic polled stderr" >&2; false; }
        fi
    done
}

@test "helper: stderr filled between the guard's poll and its write: the junk line it puts there after the gate does not wait for room, the client gets its answers" {
    local ans ping mark=$BATS_TEST_TMPDIR/filled
    ans=$(answer 0 initialize)
    ping=$(answer '"p1"' ping)
    # unwrapped: the junk line on stdout after the first answer
    status=0
    result=$(SAY_RACE_FROM=junk SAY_RACE_MARK=$mark timeout 60 "$PYTHON" "$FIX/strict_fault_client.py" --out "$OUT" \
        --err "$ERR" quiet-stderr -- "$BIN/say_race") || status=$?
    [ "$status" -eq 0 ] && [ "$result" = "status 0" ] || { echo "unwrapped: client $status: $result" >&2; false; }
    [ "$(cat "$OUT")" = "$(printf '%s\n%s\n%s' "$ans" junk-after-answer "$ping")" ] || { cat -A "$OUT" >&2; false; }
    [ ! -e "$mark" ]
    # wrapped, no diagnostics: the guard's poll for the junk line is the
    # first after it
    status=0
    result=$(SAY_RACE_FROM=junk SAY_RACE_MARK=$mark STDIOGATE_DEBUG=0 timeout 60 "$PYTHON" \
        "$FIX/strict_fault_client.py" --out "$OUT" --err "$ERR" quiet-stderr -- "$ROOT/stdiogate" "$BIN/say_race") || status=$?
    [ "$status" -eq 0 ] && [ "$result" = "status 0" ] || { echo "wrapped: client $status: $result" >&2; false; }
    [ "$(cat "$OUT")" = "$(printf '%s\n%s' "$ans" "$ping")" ] || { cat -A "$OUT" >&2; false; }
    [ -e "$mark" ] || { echo "the guard did not poll stderr" >&2; false; }
}

@test "helper: stderr a full pipe nobody reads: the wrapper's level-1 warning (a musl program, --gate-only) does not block it" {
    local ans wrap
    ans=$(answer 0 initialize)
    for wrap in "" "$ROOT/stdiogate --gate-only"; do
        status=0
        result=$(STDIOGATE_DEBUG=1 timeout 60 "$PYTHON" "$FIX/strict_fault_client.py" --out "$OUT" --err "$ERR" \
            full-stderr -- $wrap "$BIN/setups_srv_musl" 128) || status=$?
        [ "$status" -eq 0 ] || { echo "${wrap:-unwrapped}: client $status: $result" >&2; cat "$OUT" >&2; false; }
        [ "$result" = "status 0" ]
        grep -qx "$ans" "$OUT"
        grep -q "^setups-junk 00000000" "$OUT"
    done
}

# race_run N [WRAPPER]: helper_race (1 MiB of startup junk; two threads
# writing stderr 4 KiB at a time) under strict_fault_client.py race=N: stderr a
# one-page pipe whose reader stops after N bytes.  Wrapped, every write of
# the helper's is held up 200 ms on its way into the kernel (strace
# inject), after its poll said stderr had room: the server's threads take
# that room meanwhile.  Sets $status and $result.
race_run() {
    local n=$1 d=$BATS_TEST_TMPDIR/race helper="" tracer=""
    shift
    rm -rf "$d"
    mkdir -p "$d"
    timeout 60 "$PYTHON" "$FIX/strict_fault_client.py" --out "$OUT" --err "$ERR" --pidfile "$d/pid" --go "$d/go" \
        race="$n" -- "$@" "$BIN/helper_race" 1048576 2 4096 >"$d/result" 2>&1 &
    local client=$!
    if [ $# -gt 0 ]; then
        timeout 20 sh -c 'while [ ! -s "$1" ]; do sleep 0.01; done' sh "$d/pid"
        local server
        server=$(cat "$d/pid")
        for _ in $(seq 2000); do   # (bounded: 20 s)
            helper=$(ps -e -o pid=,pgid=,comm= |
                awk -v g="$server" '$2 == g && ($3 == "stdiogate-drain" || $3 == "stdiogate-filte") { print $1 }')
            [ -n "$helper" ] && break
            sleep 0.01
        done
        [ -n "$helper" ] || { echo "no helper found" >&2; kill "$client"; return 1; }
        strace -p "$helper" -e trace=write,writev -e inject=write,writev:delay_enter=200000 -o "$d/strace" 2>/dev/null &
        tracer=$!
        timeout 20 sh -c 'until grep -q "TracerPid:[[:space:]]*[1-9]" /proc/$1/status; do sleep 0.01; done' sh "$helper" ||
            { echo "strace did not attach" >&2; kill "$client" "$tracer"; return 1; }
    fi
    touch "$d/go"
    status=0
    wait "$client" || status=$?
    result=$(cat "$d/result")
    [ -z "$tracer" ] || { kill "$tracer" 2>/dev/null; wait "$tracer" || true; }
}

@test "helper: the server's own stderr writes take the room the helper polled for: the helper does not block, the client gets its answer" {
    command -v strace >/dev/null || { echo "strace is missing (make test-tools installs it)" >&2; false; }
    local ans
    ans=$(answer 0 initialize)
    # unwrapped: all the junk on stdout, then the answer
    race_run 100000
    [ "$status" -eq 0 ] && [ "$result" = "status 0" ] || { echo "unwrapped: $result" >&2; false; }
    [ "$(grep -c '^race-junk' "$OUT")" -eq 16384 ]
    [ "$(tail -n 1 "$OUT")" = "$ans" ]
    # wrapped: the stderr reader stops at two points
    for n in 100000 300000; do
        race_run "$n" "$ROOT/stdiogate"
        [ "$status" -eq 0 ] && [ "$result" = "status 0" ] || { echo "wrapped, reader stops at $n: $result" >&2; false; }
        [ "$(cat "$OUT")" = "$ans" ] || { cat -A "$OUT" | head -5 >&2; false; }
    done
}

# in_namespace SCRIPT: runs `sh -c SCRIPT` in a new pid namespace whose pid 1
# (tests/bin/helper_init) reaps only that sh; prints what helper_init prints
# ("left N" and the processes left).
in_namespace() {
    unshare --pid --fork --mount-proc true || { echo "unshare --pid failed: these tests need root" >&2; false; }
    timeout 60 unshare --pid --fork --mount-proc "$BIN/helper_init" sh -c "$1"
}

# nothing_left SCRIPT OUT: SCRIPT, run by in_namespace, leaves no process
# behind, its startup junk on stderr, exactly OUT on stdout.
nothing_left() {
    run in_namespace "$1"
    echo "$1: $output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "left 0" ] || { echo "left behind: $output" >&2; return 1; }
    grep -qx "sig-startup-junk" err
    [ "$(cat out)" = "$2" ] || { echo "$1: out: $(cat out)"; return 1; }
}

@test "helper: nothing left behind where pid 1 does not reap: default mode, stderr a file, a pipe, end of input, an exec hand-off, a server that exits while diverted" {
    cd "$BATS_TEST_TMPDIR"
    export SRV="$BIN/helper_sig" SG="$ROOT/stdiogate" INIT
    local want last='{"jsonrpc":"2.0","method":"last"}' expect
    want=$(answer 0 initialize)
    # control: an orphan that exits is counted (helper_init does not reap it)
    run in_namespace 'sh -c "exit 0" & exit 0'
    echo "control: $output"
    [ "${lines[0]}" = "left 1" ]
    for script in \
        'printf "%s\n" "$INIT" | "$SG" "$SRV" INT >out 2>err' \
        'printf "%s\n" "$INIT" | "$SG" "$SRV" INT 2>&1 >out | cat >err' \
        '"$SG" "$SRV" INT </dev/null >out 2>err' \
        'printf "%s\n" "$INIT" | "$SG" sh -c "echo sh-junk; exec \"\$SRV\" INT" >out 2>err' \
        '"$SG" sh -c "echo sig-startup-junk; echo exit-junk; exit 0" >out 2>err'; do
        case $script in
            *exit-junk*)    expect= ;;          # exits while diverted: everything on stderr
            *'</dev/null'*) expect=$last ;;     # the gate opens at end of input
            *)              expect=$(printf '%s\n%s' "$want" "$last") ;;
        esac
        nothing_left "$script" "$expect"
        case $script in *exit-junk*) grep -qx exit-junk err ;; *sh-junk*) grep -qx sh-junk err ;; esac
    done
}

@test "helper: its file missing beside the library: startup output to /dev/null with a level-1 line; the answer and the last message on the wire" {
    cd "$BATS_TEST_TMPDIR"
    mkdir -p lib
    cp "$STDIOGATE_LIB" lib/
    for err in file pipe; do
        printf '%s\n' "$INIT" | if [ $err = file ]; then
            sh -c 'exec env STDIOGATE_WIRE="$(stat -L -c "%d:%i" /proc/$$/fd/1)" LD_PRELOAD="$1" "$2" INT' \
                sh "$PWD/lib/libstdiogate.so" "$BIN/helper_sig" 2>err | timeout 20 cat >out
        else
            sh -c 'exec env STDIOGATE_WIRE="$(stat -L -c "%d:%i" /proc/$$/fd/1)" LD_PRELOAD="$1" "$2" INT' \
                sh "$PWD/lib/libstdiogate.so" "$BIN/helper_sig" 2>&1 >/dev/fd/3 3>&1 | cat >err
        fi 3>out
        [ "$(cat out)" = "$(printf '%s\n%s' "$(answer 0 initialize)" '{"jsonrpc":"2.0","method":"last"}')" ] ||
            { echo "$err: out: $(cat out)"; false; }
        grep -Eq "^stdiogate\[[0-9]+\]: cannot start the helper $PWD/lib/stdiogate-filter \(ENOENT\): startup output goes to /dev/null$" err
        ! grep -q sig-startup-junk err || false
        ! grep -q sig-startup-junk out || false
    done
}

@test "helper: --strict where pid 1 does not reap: nothing left behind (the library reaps the filter at exit, _exit, after an exec), no answer lost that exit flushes from a stream of the server's own; a static server, which cannot load it: one zombie, the filter's" {
    cd "$BATS_TEST_TMPDIR"
    export SRV="$BIN/helper_sig" SG="$ROOT/stdiogate" INIT STATIC="$BIN/tree_server_static" \
        EXITFLUSH="$BIN/strict_exitflush"
    local want
    want=$(printf '%s\n%s' "$(answer 0 initialize)" '{"jsonrpc":"2.0","method":"last"}')
    for script in \
        'printf "%s\n" "$INIT" | "$SG" --strict "$SRV" INT >out 2>err' \
        'printf "%s\n" "$INIT" | "$SG" --strict sh -c "echo sh-junk; exec \"\$SRV\" INT" >out 2>err' \
        'printf "%s\n" "$INIT" | "$SG" --strict sh -c "echo sh-junk; \"\$SRV\" INT; exit 0" >out 2>err' \
        '"$SG" --strict sh -c "echo sig-startup-junk; exit 3" >out 2>err; [ $? -eq 3 ]'; do
        case $script in *'exit 3'*) nothing_left "$script" "" ;; *) nothing_left "$script" "$want" ;; esac
    done
    # an answer exit flushes from a stream of the server's own on a copy of
    # stdout, after the library's destructor: flushed before the pipe is let go
    # (unwrapped, it is there: the control)
    printf '%s\n' "$INIT" | "$EXITFLUSH" | grep -qxF "$(answer 0 initialize)"
    run in_namespace 'printf "%s\n" "$INIT" | "$SG" --strict "$EXITFLUSH" >out 2>err'
    echo "exitflush: $output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "left 0" ]
    [ "$(cat out)" = "$(answer 0 initialize)" ] || { echo "exitflush: out: $(cat out)" >&2; false; }
    grep -qx exitflush-junk err
    # the limit (docs/LIMITS.md): a program the library cannot enter exits without it
    run in_namespace 'printf "%s\n" "$INIT" | TREE_JUNK=none "$SG" --strict "$STATIC" >out 2>err'
    echo "static: $output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "left 1" ]
    [[ "${lines[1]}" == *" Z stdiogate-wait" ]]
    grep -q '"id":0' out
}

@test "helper: --strict, what a library of the server's writes at exit after the library's destructor: the message on the wire, the junk on stderr, nothing lost, nothing left behind where pid 1 does not reap" {
    cd "$BATS_TEST_TMPDIR"
    export SG="$ROOT/stdiogate" INIT LATE="$BIN/strict_late"
    # unwrapped (the control): both late lines on stdout, before the answer
    # that exit flushes after the destructors
    printf '%s\n' "$INIT" | "$LATE" >out
    [ "$(cat out)" = "$(printf '%s\n' early-junk late-junk '{"jsonrpc":"2.0","method":"late"}' "$(answer 0 initialize)")" ]
    rm -f out err
    run in_namespace 'printf "%s\n" "$INIT" | "$SG" --strict "$LATE" >out 2>err'
    echo "late: $output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "left 0" ]
    [ "$(cat out)" = "$(printf '%s\n' '{"jsonrpc":"2.0","method":"late"}' "$(answer 0 initialize)")" ] ||
        { echo "late: out: $(cat out)" >&2; false; }
    [ "$(grep -v '^stdiogate\[' err)" = "$(printf '%s\n' early-junk late-junk)" ] ||
        { echo "late: err: $(cat err)" >&2; false; }
}

# lazy_lib: a copy of the library beside a stdiogate-filter that notes each
# start ("--drain PID" a line, in ./started) and execs the real one.
lazy_lib() {
    mkdir -p lazy
    cp "$STDIOGATE_LIB" lazy/
    printf '#!/bin/sh\necho "$*" >>%s/started\nexec %s "$@"\n' "$PWD" "$ROOT/stdiogate-filter" >lazy/stdiogate-filter
    chmod 755 lazy/stdiogate-filter
    rm -f started
}

# lazy_run PYTHON-CODE: the code as a server, the client sending $INIT and
# waiting for one frame, under lazy_lib's library (stdout and stderr pipes).
lazy_run() {
    rm -f started
    STDIOGATE_WRAPPER= STDIOGATE_LIB="$PWD/lazy/libstdiogate.so" gated --frames 1 --line "$INIT" -- "$PYTHON" -c "$1"
}

LAZY_ANSWER='import sys; sys.stdin.readline(); sys.stdout.write(A + "\n"); sys.stdout.flush()'

@test "helper: started only when there is something to carry: none for a server silent before its first message, nor for a line (write, printf) stderr takes at once; for a raw system call's bytes, 2 MiB of write(2) and of C stdio (no hang), byte-exact on stderr" {
    cd "$BATS_TEST_TMPDIR"
    lazy_lib
    local ans pre
    ans=$(answer 0 initialize)
    pre="A = '$ans'; import ctypes, os; libc = ctypes.CDLL(None)"
    # silent: the answer alone, nothing on stderr, no helper
    lazy_run "$pre; $LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    [ ! -s "$ERR" ] || { show_run; false; }
    [ ! -e started ] || { echo "a helper started for a silent server: $(cat started)" >&2; false; }
    # a line through write(2), which stderr takes at once: straight there, no helper
    lazy_run "$pre; os.write(1, b'lazy-banner\n'); $LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    assert_stderr_bytes $'lazy-banner\n'
    [ ! -e started ] || { echo "a helper started for a line stderr took: $(cat started)" >&2; false; }
    # a line through C stdio (a C server's printf), which stays in stdout's
    # buffer until the gate: no helper either
    rm -f started
    STDIOGATE_WRAPPER= STDIOGATE_LIB="$PWD/lazy/libstdiogate.so" gated --frames 1 --line "$INIT" -- "$BIN/core_srv" read printf
    assert_status 0
    assert_stdout_bytes "$(answer 0 initialize)"$'\n'
    assert_stderr_bytes $'printf-junk\n'
    [ ! -e started ] || { echo "a helper started for a buffered printf line: $(cat started)" >&2; false; }
    # a raw system call the library cannot see: carried by the helper when the gate opens
    lazy_run "$pre; libc.syscall(1, 1, b'lazy-raw\n', 9); $LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    assert_stderr_bytes $'lazy-raw\n'
    grep -q -- '^--drain [0-9]*$' started
    # the same, the server exiting without reading (the gate never opens)
    STDIOGATE_WRAPPER= STDIOGATE_LIB="$PWD/lazy/libstdiogate.so" gated --frames 0 -- "$PYTHON" -c "$pre; libc.syscall(1, 1, b'lazy-exit\n', 10)"
    assert_status 0
    [ ! -s "$OUT" ]
    assert_stderr_bytes $'lazy-exit\n'
    # 2 MiB through write(2) before the first message, more than the pipe holds
    # (what stderr does not take at once goes through the helper)
    lazy_run "$pre; b = b'w' * 4095 + b'\n'
for i in range(512): os.write(1, b)
$LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    [ "$(wc -c <"$ERR")" -eq $((512 * 4096)) ] || { echo "stderr: $(wc -c <"$ERR") bytes" >&2; false; }
    [ "$(sort -u "$ERR")" = "$(printf 'w%.0s' $(seq 4095))" ]
    # 2 MiB through C stdio before the first message
    lazy_run "$pre; f = ctypes.c_void_p.in_dll(libc, 'stdout'); b = b'x' * 4095 + b'\n'
for i in range(512): libc.fwrite(b, 1, 4096, f)
$LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    [ "$(wc -c <"$ERR")" -eq $((512 * 4096)) ] || { echo "stderr: $(wc -c <"$ERR") bytes" >&2; false; }
    [ "$(sort -u "$ERR")" = "$(printf 'x%.0s' $(seq 4095))" ]
    grep -q -- '^--drain ' started
    # unwrapped, each of these lines goes to stdout (the test can fail)
    ungated --frames 1 --line "$INIT" -- "$PYTHON" -c "$pre; os.write(1, b'lazy-banner\n'); libc.syscall(1, 1, b'lazy-raw\n', 9); $LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes $'lazy-banner\nlazy-raw\n'"$ans"$'\n'
}

@test "helper: started before a fork and before system() while the gate is shut: 2 MiB from the child (raw system calls, a shell) reach stderr while the server waits for it" {
    cd "$BATS_TEST_TMPDIR"
    lazy_lib
    local ans pre
    ans=$(answer 0 initialize)
    pre="A = '$ans'; import ctypes, os; libc = ctypes.CDLL(None)"
    lazy_run "$pre
pid = os.fork()
if pid == 0:
    b = b'c' * 4095 + b'\n'
    for i in range(512): libc.syscall(1, 1, b, 4096)
    os._exit(0)
os.waitpid(pid, 0)
$LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    [ "$(wc -c <"$ERR")" -eq $((512 * 4096)) ] || { echo "stderr: $(wc -c <"$ERR") bytes" >&2; false; }
    grep -q -- '^--drain ' started
    lazy_run "$pre; libc.system(b'echo lazy-system; head -c 2097152 /dev/zero | tr \"\\\\\\\\0\" y'); $LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    [ "$(head -n 1 "$ERR")" = lazy-system ]
    [ "$(wc -c <"$ERR")" -eq $((12 + 2097152)) ] || { echo "stderr: $(wc -c <"$ERR") bytes" >&2; false; }
    grep -q -- '^--drain ' started
}

# no_helper_run CODE: the helper is a file that is no program (qemu-user
# refuses its clone the same way); the server writes a line with a raw
# system call (only the helper could carry it), runs CODE, answers.  The
# answer on the wire, the level-1 line, nothing of the startup output on
# stderr.
no_helper_run() {
    lazy_lib
    printf '\177ELF, but not a program\n' >lazy/stdiogate-filter
    local ans
    ans=$(answer 0 initialize)
    lazy_run "A = '$ans'; import ctypes, os; ctypes.CDLL(None).syscall(1, 1, b'lazy-banner\n', 12); $1; $LAZY_ANSWER"
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    grep -Eq "^stdiogate\[[0-9]+\]: cannot start the helper $PWD/lazy/stdiogate-filter \(ENOEXEC\): startup output goes to /dev/null$" "$ERR" ||
        { show_run; false; }
    assert_stderr_lacks lazy-banner
}

@test "helper: one that cannot start when there is something to carry (qemu-user refuses its clone; here a file that is no program): startup output to /dev/null with a level-1 line, the answer on the wire" {
    cd "$BATS_TEST_TMPDIR"
    no_helper_run pass
}

# The same, then a child that writes more than a pipe holds before the
# first message (os.system): with no helper the startup output goes to
# /dev/null, the diversion with it; left on a pipe nobody reads, the child
# would wait there for ever, its parent with it.
@test "helper: one that cannot start, then a child writing 200,000 bytes before the first message: to /dev/null, no hang, the answer on the wire" {
    cd "$BATS_TEST_TMPDIR"
    no_helper_run "os.system('head -c 200000 /dev/zero | tr \"\\\\0\" x')"
    assert_stderr_lacks xxxxxxxx
}

# Issue 45: since the lazy helper, a launcher that writes only what stderr
# takes at once starts no helper, so the exec hand-off above hands none on.
# Here each program of the chain writes with a raw system call the library
# cannot see: the bytes wait in the pipe, its exec starts the helper for
# them (level 3 says so) and hands it on in the marker; the next program,
# quick to answer and exit, reaps it (and, two hops, the one before).
HOP='import ctypes, os, sys
ctypes.CDLL(None).syscall(1, 1, b"raw-junk\n", 9)
n = int(os.environ["HOPS"])
os.environ["HOPS"] = str(n - 1)
if n > 1:
    os.execv(sys.executable, [sys.executable, "-c", os.environ["HOP"]] + sys.argv[1:])
os.execv(sys.argv[1], sys.argv[1:])'

@test "helper: a helper started at an exec is handed on and reaped by the next program where pid 1 does not reap (one hop, two hops)" {
    cd "$BATS_TEST_TMPDIR"
    export SRV="$BIN/helper_sig" SG="$ROOT/stdiogate" INIT PYTHON HOP
    local want hops
    want=$(printf '%s\n%s' "$(answer 0 initialize)" '{"jsonrpc":"2.0","method":"last"}')
    for hops in 1 2; do
        nothing_left 'printf "%s\n" "$INIT" | HOPS='$hops' STDIOGATE_DEBUG=3 "$SG" "$PYTHON" -c "$HOP" "$SRV" INT >out 2>err' "$want"
        [ "$(grep -cx raw-junk err)" = "$hops" ] || { cat err >&2; false; }
        [ "$(grep -Ec '^stdiogate\[[0-9]+\]: startup output to carry \(exec\): the helper started, process [0-9]+$' err)" = "$hops" ] ||
            { echo "not one helper started at each exec: the test shows nothing" >&2; cat err >&2; false; }
    done
}
