#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Security properties of the library.  Fixtures: tests/fixtures/fault_srv.c
# (server: "junk-printf"/"junk-write" on stdout, then a frame per request),
# tests/fixtures/fault_exec.c (sets the preload environment by hand, with an
# arbitrary STDIOGATE_WIRE, and puts fds 1/2 on files).
#
# What is tested, and how:
#  - STDIOGATE_WIRE naming a descriptor identity that is not fd 1's (stderr's
#    file, stdin's file, another pipe, malformed values): the process must not
#    divert, nor write anything anywhere but where it would without the
#    library: its fd 1 file is byte for byte the unwrapped run's, its fd 2
#    file holds no junk and no frame.  The marker is gone from the
#    environment of the programs it starts.
#  - setuid: glibc's secure mode (AT_SECURE: a setuid-root copy of the fixture
#    run by the user nobody) ignores LD_PRELOAD entries that contain a slash,
#    so the library never enters such a program.  A non-setuid copy run the
#    same way is diverted (control: the test could fail).  The copies live in
#    a directory of their own under /tmp (mode 755) so that nobody can reach
#    them; the filesystem must allow setuid (checked: skipped with the reason
#    if it is mounted nosuid, or if we are not root).
#  - files: under strace -f, a wrapped run (also with --discard, and with
#    path-like values in every STDIOGATE_ variable) makes no open for writing
#    or creating, no creat/mkdir/rename/unlink/link/symlink/truncate, and
#    never names a path taken from the environment.  The only write-mode
#    open allowed is /dev/null (the --discard diversion).

load ../helpers

frame() { printf '{"jsonrpc":"2.0","id":0,"result":{"mode":"%s"}}' "$1"; }

setup() {
    IN="$BATS_TEST_TMPDIR/in"
    printf '%s\n' "$INIT" >"$IN"
}

# Run fault_srv basic with stdin=$IN, fd 1 -> $1, fd 2 -> $2, and fault_exec OPTS.
run_files() {   # run_files OUTFILE ERRFILE OPT...
    local o=$1 e=$2
    shift 2
    status=0
    STDIOGATE_DEBUG=3 "$BIN/fault_exec" --stdout-file "$o" --stderr-file "$e" "$@" -- \
        "$BIN/fault_srv" basic <"$IN" || status=$?
}

not_the_wire() {    # not_the_wire OPT...  (fault_exec options naming the marker)
    local plain="$BATS_TEST_TMPDIR/plain" e0="$BATS_TEST_TMPDIR/e0"
    run_files "$plain" "$e0"
    assert_status 0
    run_files "$OUT" "$ERR" --gate "$@"
    assert_status 0
    # fd 1 got exactly what it gets without the library, junk and frame
    cmp "$plain" "$OUT" || { show_run; false; }
    assert_stdout_has junk-write junk-printf "$(frame basic)"
    assert_stderr_lacks junk-write junk-printf '"jsonrpc"' "diverting stdout"
}

@test "security: marker naming stderr's file: no diversion, nothing written elsewhere" {
    not_the_wire --marker-of 2
    assert_stderr_has "stdout is not the wire: not diverting"
}

@test "security: marker naming stdin's file: no diversion" {
    not_the_wire --marker-of 0
    assert_stderr_has "stdout is not the wire: not diverting"
}

@test "security: marker naming another pipe: no diversion" {
    local id
    id=$( (stat -L -c %d:%i /proc/$BASHPID/fd/1) | cat)     # fd 1 of a subshell: a pipe
    [ -n "$id" ]
    not_the_wire --marker "$id"
    assert_stderr_has "stdout is not the wire: not diverting"
}

@test "security: malformed markers are ignored (pass-through)" {
    local m
    for m in "" "x" "1:" ":1" "1:2:3" "-1:-1" " 1:2" "1:2 " "0x10:0x20" "../../etc/passwd" \
             "99999999999999999999999999:1"; do
        not_the_wire --marker "$m"
    done
}

@test "security: the marker is removed from the environment when stdout is not the wire" {
    status=0
    "$BIN/fault_exec" --gate --marker-of 2 --stdout-file "$OUT" --stderr-file "$ERR" -- \
        sh -c 'printf "[%s]\n" "${STDIOGATE_WIRE-unset}"' </dev/null || status=$?
    assert_status 0
    assert_stdout_bytes $'[unset]\n'
}

# --- setuid ------------------------------------------------------------------

suid_setup() {
    [ "$(id -u)" = 0 ] || skip "needs root to make a setuid-root copy"
    SUID_DIR=$(mktemp -d /tmp/stdiogate-suid.XXXXXX)
    chmod 755 "$SUID_DIR"
    cp "$BIN/fault_srv" "$SUID_DIR/plain_srv"
    cp "$BIN/fault_srv" "$SUID_DIR/suid_srv"
    cp "$STDIOGATE_LIB" "$SUID_DIR/libstdiogate.so"
    cp "$ROOT/stdiogate-filter" "$SUID_DIR/"    # the helper lives beside the library
    chmod 755 "$SUID_DIR/plain_srv" "$SUID_DIR/libstdiogate.so"
    chmod 4755 "$SUID_DIR/suid_srv"
    if findmnt -no OPTIONS -T "$SUID_DIR" | tr , '\n' | grep -qx nosuid; then
        skip "$SUID_DIR is on a nosuid filesystem"
    fi
}

teardown() {
    if [ -n "${SUID_DIR:-}" ]; then rm -rf "$SUID_DIR"; fi
}

as_nobody() {   # as_nobody PROGRAM: a client run, the wrapper's environment set by hand
    STDIOGATE_LIB="$SUID_DIR/libstdiogate.so" STDIOGATE_DEBUG=3 ungated --line "$INIT" -- \
        "$BIN/fault_exec" --gate -- \
        setpriv --reuid=65534 --regid=65534 --clear-groups -- "$SUID_DIR/$1" basic
}

@test "security: a setuid program is not affected, --gate-only (control: the same program, not setuid, is)" {
    suid_setup
    local -x STDIOGATE_AUTO_STRICT=0
    as_nobody plain_srv
    assert_status 0
    assert_frames "$(frame basic)"
    assert_stderr_has junk-write junk-printf
    as_nobody suid_srv
    assert_status 0
    # The library never entered the setuid program: its output went where
    # it goes without stdiogate (the wire, handed over at exec by the library
    # in setpriv, whose own diagnostics are the only ones on stderr).
    assert_stdout_has junk-write junk-printf "$(frame basic)"
    assert_stderr_lacks junk-write junk-printf
    assert_stderr_has "exec: handing the wire to $SUID_DIR/suid_srv"
    [ "$(grep -c 'diverting stdout' "$ERR")" -eq 1 ] || { show_run; false; }
}

@test "security: by default a setuid program runs under the filter, which runs unprivileged; the library stays out of it" {
    suid_setup
    as_nobody suid_srv
    assert_status 0
    assert_frames "$(frame basic)"
    assert_stderr_has junk-write junk-printf \
        "exec: $SUID_DIR/suid_srv is a setuid program: starting it under the strict filter"
    # one diversion (setpriv's): the library did nothing in the setuid program
    [ "$(grep -c 'diverting stdout' "$ERR")" -eq 1 ] || { show_run; false; }
    # the filter speaks as itself, a process of the caller's (nobody), not root's
    local filter; filter=$(sed -n 's/^stdiogate\[\([0-9]*\)\]: strict: filtering.*/\1/p' "$ERR" | head -1)
    [ -n "$filter" ] || { show_run; false; }
}

# --- files -------------------------------------------------------------------

# strace -f the wrapped run; then check the trace.
traced() {  # traced FAULT_EXEC_OPT...
    TRACE="$BATS_TEST_TMPDIR/trace"
    ungated --line "$INIT" -- strace -f -qq -e trace=%file,creat,truncate,ftruncate,memfd_create -o "$TRACE" \
        "$BIN/fault_exec" --gate "$@" -- "$BIN/fault_srv" basic
}

check_trace() {
    local bad
    # every open for writing or creating (the /dev/null diversion allowed, and
    # stderr opened anew for a non-blocking handle of the library's or the
    # helper's own)
    bad=$(grep -E 'open(at)?\(' "$TRACE" | grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC' |
          grep -vF -e '"/dev/null"' -e '"/proc/self/fd/2"' || true)
    # (the helper's counters page: ftruncate of a memfd, memory only)
    bad+=$(awk '/memfd_create\(/ { memfd[$1 " " $NF] = 1; next }
                /ftruncate\(/ { split($2, a, /[(,]/); if (($1 " " a[2]) in memfd) next }
                /(^|[^a-z_])(creat|mkdir(at)?|rename(at2?)?|unlink(at)?|link(at)?|symlink(at)?|truncate|ftruncate)\(/' \
          "$TRACE" || true)
    # any path that came from the environment (execve lines show our own
    # command line, which names them)
    bad+=$(grep -v 'execve(' "$TRACE" | grep -F '/tmp/stdiogate-env-' || true)
    if [ -n "$bad" ]; then
        echo "--- file operations the run should not make:" >&2
        echo "$bad" >&2
        false
    fi
}

@test "security: nothing written to disk, no file named by the environment (stderr diversion)" {
    command -v strace >/dev/null || skip "strace not installed"
    # (STDIOGATE_LOG names the file --log asks for: the one file written by
    # request, by the helper: core_diagnostics.bats and strict_wrapper.bats)
    traced --env STDIOGATE_DEBUG=/tmp/stdiogate-env-debug --env STDIOGATE_OPEN=/tmp/stdiogate-env-open \
        --env TMPDIR=/tmp/stdiogate-env-tmp
    assert_status 0
    assert_frames "$(frame basic)"
    assert_stderr_has junk-write junk-printf
    check_trace
}

@test "security: nothing written to disk, no file named by the environment (--discard)" {
    command -v strace >/dev/null || skip "strace not installed"
    traced --env STDIOGATE_DISCARD=1 --env STDIOGATE_DEBUG=3
    assert_status 0
    assert_frames "$(frame basic)"
    assert_stderr_lacks junk-write junk-printf
    check_trace
}
