#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 22: every member of the exec family, not only execve.  A diverted C
# launcher (tests/bin/fam_exec) runs a static program (fam_envdump_static,
# which the preload never enters) through one member, with an environment of
# its own; the new program's /proc/self/environ must be byte for byte that
# environment, plus only the marker the library documents (docs/CONTRACT.md,
# STDIOGATE_WIRE: "replaces every marker when it hands the wire", appended at
# the end) when the wire is handed, and exactly it when the gate is already
# open (no hand-off).  The wire is handed: the new program's line reaches
# stdout, the launcher's junk stderr.

load ../helpers

MEMBERS=(execve execle execvpe fexecve execveat execl execlp execv execvp posix_spawn posix_spawnp)
DUMP=$BIN/fam_envdump_static

setup() {
    [ -x "$BIN/fam_exec" ] && [ -x "$DUMP" ] || { echo "make fixtures" >&2; return 1; }
}

# fam RUNNER MEMBER [open]: RUNNER is "plain" (no stdiogate) or "gated"
# (./stdiogate; $WIRE is then the pipe's identity); stdout is a pipe (the
# wire), stderr $ERR.  At the default level: a level-2 line from posix_spawn
# is written while the drain may still hold the launcher's junk, and can
# land inside its line (stderr ordering: the drain's business).
fam() {
    local runner=$1 member=$2; shift 2
    local d=$BATS_TEST_TMPDIR/$member${1:+-$1}
    mkdir -p "$d"
    WANT=$d/want GOT=$d/got
    rm -f "$WANT" "$GOT"
    status=0
    if [ "$runner" = plain ]; then
        { timeout 30 "$BIN/fam_exec" "$member" "$DUMP" "$WANT" "$GOT" "$@" </dev/null 2>"$ERR"; echo "status $?" >"$d/status"; } | cat >"$OUT"
    else
        { stat -L -c %d:%i "/proc/$BASHPID/fd/1" >"$d/wire"
          timeout 30 "$ROOT/stdiogate" "$BIN/fam_exec" "$member" "$DUMP" "$WANT" "$GOT" "$@" </dev/null 2>"$ERR"; echo "status $?" >"$d/status"; } | cat >"$OUT"
        read -r WIRE <"$d/wire"
    fi
    read -r _ status <"$d/status"
    RUN_COMMAND="$runner fam_exec $member $*"
}

# env_diff EXPECTED-FILE: $GOT equals it, byte for byte; prints both otherwise
env_same() {
    cmp -s "$1" "$GOT" && return 0
    echo "  expected: $(tr '\0' '\n' <"$1" | tr '\n' '|')" >&2
    echo "  got:      $(tr '\0' '\n' <"$GOT" 2>/dev/null | tr '\n' '|')" >&2
    return 1
}

@test "exec family: unwrapped, each member passes its environment byte for byte (the test can fail)" {
    local m bad=()
    for m in "${MEMBERS[@]}"; do
        fam plain "$m"
        if [ "$status" != 0 ] || ! env_same "$WANT" ||
           [ "$(cat "$OUT")" != $'fam-exec-junk\nfam-envdump-output' ]; then
            echo "$m: unwrapped run wrong (status $status)" >&2; show_run; bad+=("$m")
        fi
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed: ${bad[*]}" >&2; false; }
}

@test "exec family, --gate-only: diverted, each member hands the wire with exactly the given environment plus the marker" {
    local m bad=() wire
    for m in "${MEMBERS[@]}"; do
        STDIOGATE_AUTO_STRICT=0 fam gated "$m"
        wire=$WIRE
        { cat "$WANT"; printf 'STDIOGATE_WIRE=%s\0' "$wire"; } >"$WANT.marked"
        if [ -z "$wire" ] || [ "$status" != 0 ]; then
            echo "$m: status $status, wire '$wire'" >&2; show_run; bad+=("$m"); continue
        fi
        # (the marker may name the helper the new program is to reap: :PID)
        GOT_RAW=$GOT
        tr '\0' '\n' <"$GOT_RAW" | sed -E 's/^(STDIOGATE_WIRE=[0-9]+:[0-9]+):[1-9][0-9]*$/\1/' |
            tr '\n' '\0' >"$GOT_RAW.nopid"
        GOT=$GOT_RAW.nopid
        if ! env_same "$WANT.marked"; then
            GOT=$GOT_RAW
            echo "$m: the new program's environment is not the one given plus the marker" >&2
            bad+=("$m"); continue
        fi
        GOT=$GOT_RAW
        # the wire was handed: the new program's line on stdout, nothing else
        if [ "$(cat "$OUT")" != fam-envdump-output ] || ! grep -qx fam-exec-junk "$ERR"; then
            echo "$m: stdout is not exactly the new program's line, or the junk missed stderr" >&2
            show_run; bad+=("$m"); continue
        fi
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed: ${bad[*]}" >&2; false; }
}

# Issue 24: by default the static program is started under the strict filter
# (same pid, argv, descriptors), which takes the marker out: it gets exactly
# the environment it was given, as unwrapped.  fexecve and execveat name no
# path the library could look at: they hand the wire as --gate-only does.
@test "exec family: diverted, each member that names a path starts the static program under the filter with exactly the given environment" {
    local m bad=()
    for m in execve execle execvpe execl execlp execv execvp posix_spawn posix_spawnp; do
        STDIOGATE_DEBUG=2 fam gated "$m"
        if [ "$status" != 0 ] || ! env_same "$WANT"; then
            echo "$m: status $status, or the environment is not exactly the one given" >&2
            show_run; bad+=("$m"); continue
        fi
        # its line is not a protocol message: the filter sends it to stderr
        # (and only the filter would: the wire was handed)
        if [ -s "$OUT" ] || ! grep -qx fam-exec-junk "$ERR" || ! grep -qx fam-envdump-output "$ERR" ||
           ! grep -q "fam_envdump_static is a static program: starting it under the strict filter" "$ERR"; then
            echo "$m: stdout is not empty, a junk line missed stderr, or no filter" >&2
            show_run; bad+=("$m"); continue
        fi
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed: ${bad[*]}" >&2; false; }
}

@test "exec family: gate opened by the handshake first, each member passes the environment unchanged" {
    # The guard watches the rest of the session: the static program starts
    # under the filter (which takes the marker out again), its line and the
    # launcher's are junk on stderr; fexecve's and execveat's program, which
    # the library does not look at, runs as it is (unguarded: docs/LIMITS.md).
    # With the gate alone (STDIOGATE_GUARD=0) nothing is handed: the
    # program's line is on stdout.
    local m bad=() guard unseen
    for guard in 1 0; do
      for m in "${MEMBERS[@]}"; do
        STDIOGATE_GUARD=$guard fam gated "$m" open
        if [ "$status" != 0 ] || ! env_same "$WANT"; then
            echo "$m (guard $guard): the environment changed (status $status)" >&2
            show_run; bad+=("$m/$guard"); continue
        fi
        case $m in fexecve|execveat) unseen=1 ;; *) unseen= ;; esac
        if [ "$guard" = 1 ] && [ -n "$unseen" ] && [ "$(cat "$OUT")" != fam-envdump-output ]; then
            echo "$m: a program the library cannot look at is not run as it is" >&2; show_run; bad+=("$m/$guard"); continue
        fi
        if [ "$guard" = 1 ] && [ -z "$unseen" ] && { [ -s "$OUT" ] || ! grep -qx fam-envdump-output "$ERR"; }; then
            echo "$m: with the guard, the program's line is not on stderr alone" >&2; show_run; bad+=("$m/$guard"); continue
        fi
        if [ "$guard" = 0 ] && [ "$(cat "$OUT")" != fam-envdump-output ]; then
            echo "$m: with the gate alone, the program's line is not on stdout" >&2; show_run; bad+=("$m/$guard"); continue
        fi
        if ! grep -qx fam-exec-junk "$ERR" || grep -qF stdiogate "$ERR"; then
            echo "$m (guard $guard): the handshake run went wrong" >&2; show_run; bad+=("$m/$guard")
        fi
      done
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed: ${bad[*]}" >&2; false; }
}

# Issue 45: posix_spawn's file actions on fd 1, not only with echo (a
# program the library enters) but with a static program, which the library
# starts under the strict filter only where the caller's actions leave fd 1
# the wire.  tests/bin/fam_spawn writes "fam-spawn-junk" on stdout, then
# spawns fam_envdump_static with one file action.  Each row: ACTION, then
# where the program's line goes wrapped (filter: through the filter to
# stderr; file: the file the action opened; stderr: straight there; none:
# fd 1 is closed, the write fails), and the exit status, the same unwrapped.
spawn_row() {
    local action=$1 where=$2 want=$3 d=$BATS_TEST_TMPDIR/$1
    mkdir -p "$d"
    action=${action//FILE/$d/file}
    local run=("$BIN/fam_spawn" "$action" "$DUMP" "$d/got")
    # unwrapped: the junk on stdout, the line where the action sends it
    rm -f "$d/file"
    { s=0; timeout 30 "${run[@]}" </dev/null 2>"$d/u.err" || s=$?; echo $s >"$d/status"; } | cat >"$d/u.out"
    status=$(cat "$d/status")
    [ ! -e "$d/file" ] || mv "$d/file" "$d/u.file"
    [ "$status" = "$want" ] || { echo "$1: unwrapped status $status, not $want" >&2; false; }
    grep -qx fam-spawn-junk "$d/u.out"
    # wrapped
    rm -f "$d/file"
    OUT=$d/out ERR=$d/err
    { s=0; STDIOGATE_DEBUG=2 timeout 30 "$ROOT/stdiogate" "${run[@]}" </dev/null 2>"$ERR" || s=$?; echo $s >"$d/status"; } | cat >"$OUT"
    status=$(cat "$d/status")
    RUN_COMMAND="stdiogate fam_spawn $action"
    assert_status "$want"
    [ ! -s "$OUT" ] || { echo "$1: something reached the wire" >&2; show_run; false; }
    assert_stderr_has fam-spawn-junk "exec: handing the wire to $DUMP"
    local filtered="fam_envdump_static is a static program: starting it under the strict filter"
    case $where in
        filter) assert_stderr_has "$filtered"
                [ "$(grep -cx fam-envdump-output "$ERR")" = 1 ] || { show_run; false; } ;;
        file)   assert_stderr_lacks "$filtered" fam-envdump-output
                [ "$(cat "$d/file")" = fam-envdump-output ] || { echo "$1: the file has: $(cat "$d/file")" >&2; false; }
                cmp "$d/file" "$d/u.file" ;;
        stderr) assert_stderr_lacks "$filtered"
                [ "$(grep -cx fam-envdump-output "$ERR")" = 1 ] || { show_run; false; }
                grep -qx fam-envdump-output "$d/u.err" ;;
        none)   assert_stderr_lacks "$filtered" fam-envdump-output ;;
    esac
}

@test "spawn file actions on a static program: one on fd 1 (addopen, addclose, adddup2, addclosefrom from 0) keeps the program's own fd 1 and no filter; one elsewhere (addopen, adddup2 onto 7, addclosefrom from 3, addfchdir, addchdir) still gets the filter" {
    row_table spawn_row "none filter 0" "open7 filter 0" "dup2:2:7 filter 0" "closefrom:3 filter 0" \
        "fchdir:/ filter 0" "chdir:/ filter 0" "chdir:/tmp filter 0" "open1:FILE file 0" "dup2:2:1 stderr 0" "close1 none 6" "closefrom:0 none 6"
}
