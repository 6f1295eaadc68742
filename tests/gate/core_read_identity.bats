#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: which descriptor is stdin, at what cost (issue 43).  While the
# gate is shut every read of any descriptor asks whether it is stdin (by
# identity: HAZARDS.md); a program that reads a configuration file a line at
# a time before stdin (Node reads OpenSSL's with fgets, ~4,000 calls) must
# not pay a system call per line for it.  Counted with strace, wrapped
# against the same run unwrapped (never timed).  And what the library knew
# of a number must not outlive the number: tests/bin/core_identity reads a
# JSON-looking file on a descriptor, then makes that very number a copy of
# stdin (dup2, dup3, dup, fcntl, open, SCM_RIGHTS, fopen, freopen, a dup2
# under a stream) and serves it: the read of the first message on it must
# open the gate (not the fail-safe).

load ../helpers

NSRV=$FIX/core_node_server.js
ID=$BIN/core_identity

setup() {
    [ -x "$ID" ] || { echo "make fixtures" >&2; return 1; }
    command -v strace >/dev/null || { echo "strace is missing (make test-tools installs it)" >&2; return 1; }
}

# stat_calls TRACE PROGRAM: the fstat, newfstatat and statx calls in TRACE
# (strace -f) made by the process that ran PROGRAM, from its execve on.
stat_calls() {
    awk -v prog="$2" '
        /execve\(/ && index($0, "execve(\"" prog "\"") && / = 0$/ { pid = $1; n = 0; next }
        pid != "" && $1 == pid && /^[0-9]+ +(fstat|newfstatat|statx)\(/ { n++ }
        END { print (pid == "" ? "none" : n) }' "$1"
}

# traced_stats WRAPPED|UNWRAPPED OPTS... -- PROGRAM ARG...: the run under
# strace -f; prints the stat calls of PROGRAM's process.
traced_stats() {
    local how=$1 trace="$BATS_TEST_TMPDIR/trace.$1"; shift
    local opts=() prog
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    prog=$(command -v "$1")
    if [ "$how" = wrapped ]; then
        gated "${opts[@]}" -- strace -f -qq -e trace=execve,fstat,newfstatat,statx -o "$trace" "$prog" "${@:2}"
    else
        ungated "${opts[@]}" -- strace -f -qq -e trace=execve,fstat,newfstatat,statx -o "$trace" "$prog" "${@:2}"
    fi
    assert_status 0
    stat_calls "$trace" "$prog"
}

# few_more_stats BOUND OPTS... -- PROGRAM ARG...: wrapped, PROGRAM's process
# makes at most BOUND stat calls more than unwrapped; JUNK on stderr, the
# frames on stdout.
few_more_stats() {
    local bound=$1; shift
    local plain ours
    plain=$(traced_stats unwrapped "$@")
    for j in "${JUNK[@]}"; do
        grep -qF -- "$j" "$OUT" || { echo "unwrapped: '$j' not on stdout" >&2; show_run; return 1; }
    done
    ours=$(traced_stats wrapped "$@")
    assert_junk_on_stderr
    echo "stat calls: unwrapped $plain, wrapped $ours (bound: +$bound)" >&2
    [ "$plain" != none ] && [ "$ours" != none ] || { echo "no execve of the program in a trace" >&2; return 1; }
    if [ "$ours" -gt $((plain + bound)) ]; then
        echo "the library made $((ours - plain)) stat calls of its own (bound $bound)" >&2
        return 1
    fi
}

@test "identity: a Node server's start makes no stat call per line of a file it reads (OpenSSL's configuration)" {
    JUNK=(node-top-junk)
    few_more_stats 100 --line "$INIT" --line "$PING" -- node "$NSRV" top
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "identity: a C server reading a 2,000-line file with fgets, getline, getc and read before stdin: no stat call per call" {
    JUNK=(after-config-junk reuse-junk)
    few_more_stats 40 --line "$INIT" --line "$PING" -- "$ID" none 2000
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

# reused HOW [READER]: the number read as a file, then a copy of stdin the
# HOW way: the gate opens by READER (read) after the first message.
reused() {
    JUNK=(after-config-junk reuse-junk)
    STDIOGATE_DEBUG=2 init_ping_diverted -- "$ID" "$1"
    assert_gate_opened_by "${2:-read}" "$INIT_BYTES"
}

@test "identity: a number read as a file, then made a copy of stdin by dup2" { reused dup2; }
@test "identity: ... by dup3" { reused dup3; }
@test "identity: ... closed, then dup(0) takes it" { reused dup; }
@test "identity: ... closed, then fcntl(0, F_DUPFD, N) takes it" { reused fcntl; }
@test "identity: ... closed, then open(\"/proc/self/fd/0\") takes it" { reused open; }
@test "identity: ... closed, then stdin received over a socket (SCM_RIGHTS) takes it" { reused scm; }
@test "identity: a stream read as a file, fclose, then fopen(\"/proc/self/fd/0\") (fgets)" { reused fopen fgets; }
@test "identity: a stream read as a file, then freopen(\"/proc/self/fd/0\") on it (fgets)" { reused freopen fgets; }
@test "identity: a stream read as a file, then stdin dup2'd under it (fgets)" { reused under fgets; }

# same_ino RUNNER: say_race (junk after its first answer) with stdout a file
# on one tmpfs and stderr a file on another, both the first file made there:
# the same inode number on two devices.  Prints nothing; leaves out and err
# in $BATS_TEST_TMPDIR/ino.
same_ino() {
    local d=$BATS_TEST_TMPDIR/ino
    rm -rf "$d" && mkdir -p "$d/a" "$d/b"
    printf '%s\n%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize"}' "$PING" >"$d/in"
    SAY_RACE_FROM=junk timeout 60 unshare -m sh -c '
        d=$1; shift
        mount -t tmpfs a "$d/a" && mount -t tmpfs b "$d/b" || exit 3
        : >"$d/a/out" && : >"$d/b/err" || exit 3
        [ "$(stat -c %i "$d/a/out")" = "$(stat -c %i "$d/b/err")" ] || { echo "inode numbers differ" >&2; exit 4; }
        [ "$(stat -c %d "$d/a/out")" != "$(stat -c %d "$d/b/err")" ] || exit 5
        "$@" <"$d/in" >"$d/a/out" 2>"$d/b/err"
        s=$?
        cp "$d/a/out" "$d/out" && cp "$d/b/err" "$d/err"
        exit $s' sh "$d" "$@"
}

@test "identity: stderr a file on another filesystem with the wire's inode number is not the wire: the junk reaches it, not discarded" {
    unshare -m true || { echo "unshare -m failed: this test needs root" >&2; false; }
    local d=$BATS_TEST_TMPDIR/ino ans ping
    ans=$(answer 0 initialize)
    ping=$(answer '"p1"' ping)
    same_ino "$BIN/say_race"
    [ "$(cat "$d/out")" = "$(printf '%s\n%s\n%s' "$ans" junk-after-answer "$ping")" ]
    same_ino "$ROOT/stdiogate" "$BIN/say_race"
    [ "$(cat "$d/out")" = "$(printf '%s\n%s' "$ans" "$ping")" ] || { cat -A "$d/out" >&2; false; }
    grep -qx junk-after-answer "$d/err" || { echo "stderr:" >&2; cat "$d/err" >&2; false; }
}
