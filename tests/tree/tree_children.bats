#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 3: what the server starts.  Before the first message:
# helpers whose stdout the server redirected (a pipe, /dev/null, stderr) keep
# the redirection; system() and popen("cat", "w") children inherit the
# diversion.  After the first message: everything is the program's own
# (captures work, a child writes on the wire as it would unwrapped), and a
# bash server answers with external commands.

load ../helpers

setup() { tree_setup; }

# nowhere_before MODE PLAIN WRAPPED...: tree_server's helpers started the
# MODE way before the first message (TREE_BEFORE=MODE), unwrapped and
# wrapped: it exits 0 both times; unwrapped PLAIN is nowhere, wrapped the
# frames alone are on stdout and every WRAPPED nowhere.
nowhere_before() {
    local mode=$1 plain=$2
    shift 2
    expect_frames tree
    TREE_BEFORE=$mode tree_run_plain tests/bin/tree_server
    assert_status 0
    assert_nowhere "$plain"
    TREE_BEFORE=$mode tree_run tests/bin/tree_server
    assert_status 0
    assert_stdout_frames
    assert_nowhere "$@"
}

@test "tree: helpers with stdout to a pipe (fork+exec, popen r, posix_spawnp dup2) before the first message: the pipe gets it" {
    expect_frames tree
    TREE_BEFORE=pipe tree_run_plain tests/bin/tree_server
    assert_stderr_has "tree_server: pipe got [pipe-fork] [pipe-popen] [pipe-spawn]"
    TREE_BEFORE=pipe tree_run tests/bin/tree_server
    assert_status 0
    assert_stdout_frames
    assert_stderr_has "tree_server: pipe got [pipe-fork] [pipe-popen] [pipe-spawn]" JUNK-server-write JUNK-server-printf
    assert_stdout_lacks pipe-fork pipe-popen pipe-spawn
}

@test "tree: helpers with stdout to /dev/null (fork+exec, posix_spawnp open, system >/dev/null): the output is gone" {
    nowhere_before devnull JUNK-devnull JUNK-devnull
    assert_stderr_has JUNK-server-write
}

@test "tree: helpers with stdout on stderr (fork+dup2(2,1)+exec, posix_spawnp dup2(2,1), system >&2): on stderr" {
    expect_frames tree
    TREE_BEFORE=stderr tree_run_plain tests/bin/tree_server
    assert_status 0
    assert_stderr_has REDIR-stderr-fork REDIR-stderr-spawn REDIR-stderr-system
    TREE_BEFORE=stderr tree_run tests/bin/tree_server
    assert_status 0
    assert_stdout_frames
    assert_stderr_has REDIR-stderr-fork REDIR-stderr-spawn REDIR-stderr-system
}

@test "tree: shell server: helpers with stdout to a pipe, /dev/null and >&2 before it execs the C server" {
    local script='
echo JUNK-sh
/bin/echo via-pipe | cat >"$1"
/bin/echo JUNK-devnull >/dev/null
/bin/echo REDIR-stderr >&2
v=$(cat "$1")
echo "sh: the pipe carried [$v]" >&2
exec tests/bin/tree_server "$v"'
    expect_frames via-pipe
    tree_run_plain sh -c "$script" sh "$BATS_TEST_TMPDIR/piped"
    assert_status 0
    assert_stdout_has JUNK-sh
    assert_frames_among_stdout
    assert_nowhere JUNK-devnull
    tree_run sh -c "$script" sh "$BATS_TEST_TMPDIR/piped"
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-sh REDIR-stderr "sh: the pipe carried [via-pipe]"
    assert_nowhere JUNK-devnull
}

@test "tree: system(\"echo banner\") during startup lands on stderr" {
    TREE_BEFORE=system tree_check tree JUNK-system JUNK-system-ext JUNK-server-write -- tests/bin/tree_server
}

@test "tree: popen(\"cat\", \"w\") during startup lands on stderr" {
    TREE_BEFORE=popen tree_check tree JUNK-popen JUNK-server-write -- tests/bin/tree_server
}

@test "tree: all of it at once, under a dash launcher" {
    TREE_BEFORE=pipe,devnull,stderr,system,popen tree_check tree JUNK-dash JUNK-system JUNK-popen JUNK-server-write -- \
        dash -c 'echo JUNK-dash; exec "$0"' tests/bin/tree_server
    assert_stderr_has REDIR-stderr-fork REDIR-stderr-spawn REDIR-stderr-system \
        "tree_server: pipe got [pipe-fork] [pipe-popen] [pipe-spawn]"
    assert_nowhere JUNK-devnull
}

@test "tree: after the gate opened: a popen capture works and a fork+exec'd child and system() write on the wire" {
    expect_frames_with tree "$(notification captured-after)" "$(notification child-after)" "$(notification system-after)"
    TREE_AFTER=capture,child,system tree_run_plain tests/bin/tree_server
    assert_status 0
    assert_frames_among_stdout
    TREE_AFTER=capture,child,system tree_run tests/bin/tree_server
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-server-write JUNK-server-printf
}

@test "tree: after the gate opened, under a bash launcher that forked the server: children's stdout is theirs" {
    expect_frames_with tree "$(notification captured-after)" "$(notification child-after)" "$(notification system-after)"
    TREE_AFTER=capture,child,system tree_run bash -c 'echo JUNK-bash; "$0"; exit $?' tests/bin/tree_server
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-bash JUNK-server-write
}

bash_server() {
    expect_frames tree
    TREE_ANSWER="$1" tree_run_plain tests/fixtures/tree_server.bash
    assert_status 0
    assert_stdout_has JUNK-bashserver-echo JUNK-bashserver-external
    assert_frames_among_stdout
    TREE_ANSWER="$1" tree_run tests/fixtures/tree_server.bash
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-bashserver-echo JUNK-bashserver-external \
        "tree_server.bash: started as tree, answering with $1, pre=[precaptured]"
}

@test "tree: bash server answering with the external printf after the first message" { bash_server printf; }
@test "tree: bash server answering with cat of a here-document after the first message" { bash_server cat; }
@test "tree: bash server answering with jq -c after the first message" {
    command -v jq >/dev/null || { echo "jq is needed (apt-get install jq)"; false; }
    bash_server jq
}

@test "tree: bash server: \$(...) capture and a child writing on the inherited stdout after the gate opened" {
    expect_frames_with tree "$(notification captured-after)" "$(notification child-after)"
    TREE_AFTER=1 tree_run_plain tests/fixtures/tree_server.bash
    assert_status 0
    assert_frames_among_stdout
    TREE_AFTER=1 tree_run tests/fixtures/tree_server.bash
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-bashserver-echo JUNK-bashserver-external
}

@test "tree: bash server behind sh -c 'exec' and the pyenv-like shim's kind of \$(...) helpers" {
    expect_frames_with tree "$(notification captured-after)" "$(notification child-after)"
    TREE_AFTER=1 TREE_ANSWER=cat tree_run sh -c 'echo JUNK-sh; v=$(/bin/echo x); echo "sh: $v" >&2; exec "$0"' tests/fixtures/tree_server.bash
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-sh "sh: x" JUNK-bashserver-echo JUNK-bashserver-external
}

@test "tree: helpers whose fd 1 was closed and reopened on /dev/null (libc close, and a raw close system call as libuv does)" {
    nowhere_before reopen JUNK-reopen JUNK-reopen-libc JUNK-reopen-raw
}

@test "tree: Node server's helpers before the first message: execSync capture, stdio 'ignore', stdout on stderr" {
    expect_frames node-captured
    tree_run_plain tests/fixtures/tree_nodechildren.js
    assert_status 0
    assert_stdout_has JUNK-nodechildren-log JUNK-nodeserver-log
    assert_frames_among_stdout
    assert_nowhere JUNK-node-ignore
    assert_stderr_has REDIR-node-stderr
    tree_run tests/fixtures/tree_nodechildren.js
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-nodechildren-log JUNK-nodeserver-log REDIR-node-stderr "tree_nodechildren: captured [node-captured]"
    assert_nowhere JUNK-node-ignore
}

@test "tree: after the gate opened, a child given a marker that matches the wire by the program does not divert (marker stripped)" {
    expect_frames_with tree "$(notification marker-stripped)"
    TREE_AFTER=marker tree_run_plain tests/fixtures/tree_server.bash
    assert_status 0
    assert_frames_among_stdout
    TREE_AFTER=marker tree_run tests/fixtures/tree_server.bash
    assert_status 0
    assert_stdout_frames
}
