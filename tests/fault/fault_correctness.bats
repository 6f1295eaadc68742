#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Correctness of the library (issue 11, sections 3 and 4): descriptors the
# program points elsewhere by itself, descriptors past 4096, close-on-exec,
# the stack of a thread that execs, signal handlers inside stdio, vfork
# children, daemon(3), close_range, identities, empty reads, what a program
# started by a diverted one inherits, secure execution.
# Fixtures: tests/fixtures/fault_correct.c (one MODE per case, see there),
# tests/fixtures/fault_fdlist_static.c (a static program that lists its fds).

load ../helpers

FC=$BIN/fault_correct

fc_frame() { printf '{"jsonrpc":"2.0","id":%s,"result":{"mode":"%s"}}' "$1" "$2"; }

# fc_both MODE ANSWERED: fault_correct MODE unwrapped and gated: it exits 0,
# the wire holds its answer for the initialize (from mode ANSWERED), $JUNK
# reaches stderr.
fc_both() {
    both --line "$INIT" -- "$FC" "$1"
    assert_status 0
    assert_frames "$(fc_frame 0 "$2")"
    assert_junk_on_stderr
}

teardown() { kill_listed "${PIDFILE:-}"; }

# --- fd 1 pointed at /dev/null or stderr by the program itself ----------------
# freopen() moves the new file onto fd 1 with glibc's internal dup3, which no
# interposer sees.  When the diversion is that same file (/dev/null with
# --discard; the stderr pipe), only the open file tells them apart: the gate
# must leave the program's choice alone.

# freopen_null_discard: fault_correct freopen-null unwrapped (its junk on
# stdout, the later junk nowhere), then with --discard: the answer exactly,
# the later junk neither on the wire nor on stderr.
freopen_null_discard() {
    JUNK=(freopen-null-junk-printf freopen-null-junk-write)
    both --line "$INIT" -- "$FC" freopen-null
    assert_stdout_lacks after-reopen-junk
    STDIOGATE_DISCARD=1 gated --line "$INIT" -- "$FC" freopen-null
    assert_status 0
    assert_frames "$(fc_frame 0 freopen-null)"
    assert_stderr_lacks after-reopen-junk freopen-null-junk
}

# freopen_stderr: fault_correct freopen-stderr: what follows the freopen
# stays on stderr.
freopen_stderr() {
    JUNK=(freopen-stderr-junk-printf freopen-stderr-junk-write)
    fc_both freopen-stderr freopen-stderr
    assert_stderr_has after-reopen-junk
}

@test "correctness: freopen(\"/dev/null\") on stdout while diverted to /dev/null (--discard): stays the program's" {
    freopen_null_discard
}

# The same with the gate alone (STDIOGATE_GUARD=0): the session guard would
# catch on the wire what a gate that took the program's file for its own
# diversion moved there, so only the gate alone shows the gate's choice.
@test "correctness: freopen(\"/dev/null\") on stdout, --discard, the gate alone: fd 1 stays the program's /dev/null after the gate" {
    local -x STDIOGATE_GUARD=0
    freopen_null_discard
}

@test "correctness: freopen(\"/dev/stderr\") on stdout, the gate alone: what follows stays on stderr after the gate" {
    local -x STDIOGATE_GUARD=0
    freopen_stderr
}

@test "correctness: freopen(\"/dev/null\") on stdout with 2>/dev/null: stays the program's" {
    ungated --line "$INIT" -- "$BIN/fault_exec" --stderr-file /dev/null --gate -- "$FC" freopen-null
    assert_status 0
    assert_frames "$(fc_frame 0 freopen-null)"
}

@test "correctness: freopen(\"/dev/stderr\") on stdout while diverted to stderr: stays on stderr" {
    freopen_stderr
}

# --- copies of fd 1 past 4096, close-on-exec ---------------------------------

@test "correctness: a copy of fd 1 at descriptor 5000 follows it onto the wire" {
    JUNK=(high-copy-junk-write)
    both --nofile 8192 --line "$INIT" -- "$FC" high-copy 5000
    assert_status 0
    assert_frames "$(fc_frame 0 high-copy)"
    assert_junk_on_stderr
}

@test "correctness: fd 1's FD_CLOEXEC survives the gate opening" {
    ungated --line "$INIT" -- "$FC" cloexec
    assert_stdout_has '{"jsonrpc":"2.0","id":0,"result":{"mode":"cloexec","cloexec":1}}'
    gated --line "$INIT" -- "$FC" cloexec
    assert_status 0
    assert_frames '{"jsonrpc":"2.0","id":0,"result":{"mode":"cloexec","cloexec":1}}'
    assert_stderr_has cloexec-junk-write
}

@test "correctness: a close-on-exec fd 1 is not handed to an exec'd program" {
    ungated --frames 0 -- "$FC" cloexec-exec
    assert_stderr_has fd1=closed
    gated --frames 0 -- "$FC" cloexec-exec
    assert_status 0
    assert_stderr_has fd1=closed cloexec-exec-junk-write
    assert_frames
}

# --- the stack of a thread that execs ----------------------------------------
# 30,000 environment entries, from a thread with a 128 KiB stack: an
# environment copy on the stack would be 240 KB.

@test "correctness: execve with 30,000 environment entries from a thread with a 128 KiB stack" {
    JUNK=(stack-exec-junk-write child-junk-write)
    fc_both stack-exec child
}

@test "correctness: posix_spawn with 30,000 environment entries from a thread with a 128 KiB stack" {
    JUNK=(stack-spawn-junk-write child-junk-write)
    fc_both stack-spawn child
}

# --- a signal handler opens the gate while its thread is inside stdio ---------
# The interrupted code holds stdout's lock with half an answer in the buffer:
# the gate must not flush that buffer (the half would go to stderr and the
# rest to the wire).

@test "correctness: the gate opened by a signal handler while stdout's lock is held flushes nothing" {
    JUNK=(sigflush-junk-printf sigflush-junk-write)
    fc_both sigflush sigflush
    assert_stderr_lacks jsonrpc
}

# --- a vfork child's reads are not the server's ------------------------------
# The vfork child reads the first request and exits; the parent then reads
# the second one byte at a time, with chatter after each byte: the gate opens
# at the end of the parent's first message, not at its first byte.

@test "correctness: a vfork child that reads stdin does not feed the parent's detector" {
    JUNK=(chatter-junk)
    both --line "$INIT" --line "$PING" --frames 1 -- "$FC" vfork-read
    STDIOGATE_DEBUG=2 gated --line "$INIT" --line "$PING" --frames 1 -- "$FC" vfork-read
    assert_status 0
    assert_frames "$(fc_frame '"p1"' vfork-read)"
    assert_junk_on_stderr
    # the parent's own count: the detector ends a JSON message at its last '}'
    assert_stderr_has "gate opened by read after ${#PING} bytes"
}

# --- daemon(3) -----------------------------------------------------------------
# daemon() points 0, 1 and 2 at /dev/null with glibc-internal calls.  The
# daemon outlives the server: the client must see end of file on stdout when
# the server exits, as unwrapped.  `cat` ends at that end of file; `timeout`
# bounds the wait.

daemon_case() {  # daemon_case MODE WRAPPED(0|1)
    PIDFILE=$BATS_TEST_TMPDIR/pids
    : >"$PIDFILE"
    local run=()
    [ "$2" = 1 ] && run=("$BIN/fault_exec" --gate --)
    set -o pipefail
    status=0
    printf '%s\n' "$INIT" | timeout 15 "${run[@]}" "$FC" "$1" "$PIDFILE" 2>"$ERR" |
        timeout 15 cat >"$OUT" || status=$?
    assert_status 0
    if [ "$2" = 1 ]; then
        assert_frames "$(fc_frame 0 "$1")"
    else
        assert_stdout_has "$(fc_frame 0 "$1")" "$1-junk-write"
    fi
    [ -s "$PIDFILE" ] || { echo "no daemon was started" >&2; false; }
    teardown
}

@test "correctness: a daemon(3) child started before the first message does not hold the wire" {
    daemon_case daemon-before 0
    daemon_case daemon-before 1
    assert_stderr_has daemon-before-junk-write
}

@test "correctness: a daemon(3) child started after the first answer does not hold the wire" {
    daemon_case daemon-after 0
    daemon_case daemon-after 1
}

# daemon(0, 1): a server that detaches (to "/") and keeps its stdio serves
# from the daemon; the library passes both arguments as given (swapped, the
# daemon's stdio would be /dev/null and its directory kept:
# ind5-fds-daemon-args-swapped).  Before the first message and after the
# first answer; the answer tells the daemon's directory and whether it is
# the process the client started.
@test "correctness: daemon(0, 1) (to /, stdio kept) before the first message and after the first answer: the daemon serves on the wire, as unwrapped" {
    cd "$BATS_TEST_TMPDIR"
    cat >detach.py <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
first = os.getpid()
def detach():
    if libc.daemon(0, 1) != 0:
        sys.exit("daemon: errno %d" % ctypes.get_errno())
if sys.argv[1] == "before":
    detach()
for n, line in enumerate(sys.stdin):
    i = line.index('"id":') + 5
    rid = line[i:line.index(",", i)]
    sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"cwd":"%s","detached":%s}}\n'
                     % (rid, os.getcwd(), "true" if os.getpid() != first else "false"))
    sys.stdout.flush()
    if n == 0 and sys.argv[1] == "after":
        detach()
PY
    local when want
    for when in before after; do
        if [ $when = before ]; then
            want='{"jsonrpc":"2.0","id":1,"result":{"cwd":"/","detached":true}}'
        else
            want='{"jsonrpc":"2.0","id":1,"result":{"cwd":"'$BATS_TEST_TMPDIR'","detached":false}}'
        fi
        want+=$'\n''{"jsonrpc":"2.0","id":2,"result":{"cwd":"/","detached":true}}'$'\n'
        ungated --each --line '{"jsonrpc":"2.0","id":1,"method":"initialize"}' --line '{"jsonrpc":"2.0","id":2,"method":"ping"}' \
            -- "$PYTHON" detach.py $when
        assert_status 0
        assert_stdout_bytes "$want"
        gated --each --line '{"jsonrpc":"2.0","id":1,"method":"initialize"}' --line '{"jsonrpc":"2.0","id":2,"method":"ping"}' \
            -- "$PYTHON" detach.py $when
        assert_status 0
        assert_stdout_bytes "$want"
    done
}

# --- section 4: behaviours pinned down ---------------------------------------

@test "correctness: close_range(first, last) leaves every descriptor above last open" {
    JUNK=(closerange-junk-write)
    fc_both closerange closerange
}

# Two fresh tmpfs mounts (a private mount namespace) give their first files
# the same inode number on two devices: stdin is one, the program reads the
# other (a complete request) before anything else.  Only st_dev tells them
# apart.
@test "correctness: a file on another device with stdin's inode number does not feed the detector" {
    local d=$BATS_TEST_TMPDIR
    mkdir -p "$d/a" "$d/b"
    set -o pipefail
    status=0
    # shellcheck disable=SC2016
    timeout 20 unshare -m sh -c '
        d=$1; shift
        mount -t tmpfs none "$d/a" && mount -t tmpfs none "$d/b" || exit 90
        printf "%s\n" "$1" >"$d/a/in"; printf "%s\n" "$2" >"$d/b/other"; shift 2
        [ "$(stat -c %i "$d/a/in")" = "$(stat -c %i "$d/b/other")" ] || { echo "inode numbers differ" >&2; exit 91; }
        [ "$(stat -c %d "$d/a/in")" != "$(stat -c %d "$d/b/other")" ] || { echo "same device" >&2; exit 92; }
        exec "$@" <"$d/a/in"' _ "$d" "$INIT" "$PING" "$BIN/fault_exec" --gate -- "$FC" otherdev "$d/b/other" \
        2>"$ERR" | timeout 20 cat >"$OUT" || status=$?
    assert_status 0
    assert_frames "$(fc_frame 0 otherdev)"
    assert_stderr_has after-otherdev-junk otherdev-junk-write
}

@test "correctness: stdio readers that return nothing without end of file do not open the gate" {
    JUNK=(after-empty-junk emptyread-junk-write)
    both --wait-err probed --line "$INIT" -- "$FC" emptyread
    assert_status 0
    assert_frames "$(fc_frame 0 emptyread)"
    assert_junk_on_stderr
}

# A static program (the library never enters it) lists the descriptors it
# was started with: wrapped, the same as unwrapped (no copy of stderr, of the
# diversion or of the wire), and fd 1 the wire.
handoff_case() {  # handoff_case exec|spawn|spawn-fa
    local plain wrapped
    ungated --line "$INIT" -- "$FC" "handoff-$1" "$BIN/fault_fdlist_static"
    assert_status 0
    assert_stdout_has "handoff-$1-junk-write" "$(fc_frame 0 fdlist)"
    plain=$(grep '^fdlist:' "$ERR") || { show_run; false; }
    gated --line "$INIT" -- "$FC" "handoff-$1" "$BIN/fault_fdlist_static"
    assert_status 0
    assert_frames "$(fc_frame 0 fdlist)"
    assert_stderr_has "handoff-$1-junk-write"
    wrapped=$(grep '^fdlist:' "$ERR") || { show_run; false; }
    [ "$plain" = "$wrapped" ] || { echo "unwrapped: $plain" >&2; echo "wrapped:   $wrapped" >&2; false; }
}

@test "correctness: a program exec'd by a diverted one holds no descriptor it would not hold unwrapped" {
    handoff_case exec
}

@test "correctness: a program posix_spawn'd by a diverted one holds no extra descriptor (no file actions)" {
    handoff_case spawn
}

@test "correctness: a program posix_spawn'd by a diverted one holds no extra descriptor (with file actions)" {
    handoff_case spawn-fa
}

# --- secure execution ----------------------------------------------------------
# The dynamic loader preloads into a setuid program only a library named
# without a slash, found in a system directory, that is itself setuid.  In a
# private mount namespace a setuid copy of libstdiogate.so is bound over
# glibc's libBrokenLocale.so.1 (which nothing here uses), so that it does get
# into the setuid server.  There (AT_SECURE) the library must do nothing: the
# server's junk goes where it goes unwrapped, and only setpriv (not setuid,
# also preloaded) diverts.
@test "correctness: under secure execution (AT_SECURE) the library does nothing" {
    local libc libdir d
    libc=$(ldd "$BIN/fault_srv" | awk '/libc\.so\.6/ { print $3 }')
    libdir=$(dirname "$libc")
    [ -f "$libdir/libBrokenLocale.so.1" ] || { echo "no $libdir/libBrokenLocale.so.1" >&2; false; }
    d=$(mktemp -d /tmp/stdiogate-secure.XXXXXX)
    PIDFILE=  # nothing to kill
    chmod 755 "$d"
    cp "$STDIOGATE_LIB" "$d/lib.so"
    cp "$BIN/fault_srv" "$d/suid_srv"
    chmod 4755 "$d/lib.so" "$d/suid_srv"
    # shellcheck disable=SC2016
    STDIOGATE_LIB=libBrokenLocale.so.1 STDIOGATE_DEBUG=3 ungated --line "$INIT" -- \
        unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' _ \
        "$d/lib.so" "$libdir/libBrokenLocale.so.1" \
        "$BIN/fault_exec" --gate -- setpriv --reuid=65534 --regid=65534 --clear-groups -- \
        "$d/suid_srv" basic
    rm -rf "$d"
    assert_status 0
    assert_stdout_has junk-write junk-printf '{"jsonrpc":"2.0","id":0,"result":{"mode":"basic"}}'
    assert_stderr_has "exec: handing the wire to $d/suid_srv"
    [ "$(grep -c 'diverting stdout' "$ERR")" -eq 1 ] || { show_run; false; }
}
