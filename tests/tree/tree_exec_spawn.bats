#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 3: C parents.  Every member of the exec family (after
# a failed exec, which must leave the caller diverted), and posix_spawnp with
# and without file actions, a redirecting file action, and a second thread
# that writes on stdout during the spawns.

load ../helpers

setup() { tree_setup; }

exec_func() {
    local func="$1" server="tests/bin/tree_server"
    case $func in *p*) server=tree_server; export PATH="$BIN:$PATH" ;; esac
    tree_check tree JUNK-exec-before JUNK-exec-after-failure JUNK-server-write JUNK-server-printf -- \
        tests/bin/tree_exec "$func" "$server"
    assert_stderr_has "tree_exec: $func of a missing program failed"
}

@test "tree: C launcher execv (after a failed execv)"     { exec_func execv; }
@test "tree: C launcher execvp (after a failed execvp)"   { exec_func execvp; }
@test "tree: C launcher execvpe (after a failed execvpe)" { exec_func execvpe; }
@test "tree: C launcher execve (after a failed execve)"   { exec_func execve; }
@test "tree: C launcher execl (after a failed execl)"     { exec_func execl; }
@test "tree: C launcher execlp (after a failed execlp)"   { exec_func execlp; }
@test "tree: C launcher execle (after a failed execle)"   { exec_func execle; }
@test "tree: C launcher fexecve (after a failed open)"    { exec_func fexecve; }
@test "tree: C launcher execveat (after a failed open)"   { exec_func execveat; }

@test "tree: execve with an explicit environment passes it on and the marker does not stay in it" {
    tree_check tree JUNK-exec-before JUNK-envcheck -- \
        tests/bin/tree_exec execve /bin/sh -c 'echo "JUNK-envcheck $TREE_EXEC_ENV marker=${STDIOGATE_WIRE-unset}"; exec tests/bin/tree_server'
    assert_stderr_has "JUNK-envcheck execve marker=unset"
}

SPAWN_TAGS=(JUNK-spawn-printf JUNK-spawn-write JUNK-spawn-after JUNK-server-write JUNK-server-printf)

@test "tree: C parent, posix_spawnp without file actions, waits" {
    tree_check tree "${SPAWN_TAGS[@]}" -- tests/bin/tree_spawn plain tests/bin/tree_server
}

@test "tree: C parent, posix_spawnp with file actions and attributes that leave fd 1 alone" {
    PATH="$BIN:$PATH" tree_check tree "${SPAWN_TAGS[@]}" -- tests/bin/tree_spawn actions tree_server
}

@test "tree: C parent, posix_spawnp of a helper with dup2(pipe, 1): the pipe gets its output, then the server" {
    tree_check spawn-captured "${SPAWN_TAGS[@]}" -- tests/bin/tree_spawn pipe tests/bin/tree_server
    assert_stderr_has "tree_spawn: the pipe carried [spawn-captured], echo exited 0"
}

# Each spawn waits for the startup output written before it to reach stderr
# (the new program's stderr comes after it), never for what the thread keeps
# writing meanwhile: waiting for an empty pipe made the 200 spawns take ten
# times as long under load (the ubsan run in CI ran out of the client's 30 s).
@test "tree: C parent, a second thread writes on stdout during 200 posix_spawnp calls and the server's: none on the wire" {
    STDIOGATE_DEBUG=3 tree_check tree JUNK-thread "${SPAWN_TAGS[@]}" -- tests/bin/tree_spawn thread tests/bin/tree_server
    assert_stdout_lacks JUNK-thread
    assert_stderr_lacks "has not passed on the startup output"
    assert_stderr_has "tree_spawn: the thread wrote"
}

@test "tree: C parent, posix_spawnp of a Python server through its pyenv shebang" {
    tree_check tree JUNK-spawn-write JUNK-spawn-after JUNK-pyserver-print -- \
        tests/bin/tree_spawn actions tests/fixtures/tree_server.py
}

@test "tree: C launcher execvp of a script without #! (glibc runs it with /bin/sh after ENOEXEC), found late in PATH" {
    mkdir -p "$BATS_TEST_TMPDIR/pathbin" "$BATS_TEST_TMPDIR/empty"
    printf 'echo JUNK-noshebang\nexec %s/tests/bin/tree_server "$@"\n' "$ROOT" >"$BATS_TEST_TMPDIR/pathbin/tree-noshebang"
    chmod +x "$BATS_TEST_TMPDIR/pathbin/tree-noshebang"
    # A same-named file that is not executable comes first in PATH.
    printf 'echo JUNK-not-executable\n' >"$BATS_TEST_TMPDIR/empty/tree-noshebang"
    PATH="/nonexistent:$BATS_TEST_TMPDIR/empty:$BATS_TEST_TMPDIR/pathbin:$PATH" \
        tree_check tree JUNK-exec-before JUNK-exec-after-failure JUNK-noshebang JUNK-server-write -- \
        tests/bin/tree_exec execvp tree-noshebang
}

@test "tree: C parent, posix_spawnp of a #!/bin/sh script found late in PATH (glibc's posix_spawnp runs no script without #!)" {
    mkdir -p "$BATS_TEST_TMPDIR/pathbin" "$BATS_TEST_TMPDIR/empty"
    printf '#!/bin/sh\necho JUNK-script\nexec %s/tests/bin/tree_server "$@"\n' "$ROOT" >"$BATS_TEST_TMPDIR/pathbin/tree-script"
    chmod +x "$BATS_TEST_TMPDIR/pathbin/tree-script"
    printf 'echo JUNK-not-executable\n' >"$BATS_TEST_TMPDIR/empty/tree-script"
    PATH="/nonexistent:$BATS_TEST_TMPDIR/empty:$BATS_TEST_TMPDIR/pathbin:$PATH" \
        tree_check tree JUNK-spawn-write JUNK-spawn-after JUNK-script JUNK-server-write -- \
        tests/bin/tree_spawn plain tree-script
}

# A launcher the preload cannot enter at the top of the tree (a static ELF:
# the wrapper warns and runs it): it runs no constructor, so it passes the
# wrapper's marker on untouched, and the dynamic server behind it diverts.
@test "tree: a static launcher at the top execs the server (execve): the server still diverts" {
    TREE_QUIET=1 tree_check tree JUNK-server-write JUNK-server-printf -- \
        tests/bin/tree_exec_static execve tests/bin/tree_server
}

@test "tree: a static launcher at the top posix_spawnp's a shell that runs the server" {
    TREE_QUIET=1 tree_check tree JUNK-sh JUNK-server-write JUNK-server-printf -- \
        tests/bin/tree_spawn_static plain sh -c 'echo JUNK-sh; x=$(/bin/echo hi); exec tests/bin/tree_server'
}
