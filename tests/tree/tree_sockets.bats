#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 3, over AF_UNIX sockets: Node-based clients (the
# TypeScript SDK, Claude Desktop, VS Code, the Inspector) give the server
# socket pairs for stdin and stdout, not pipes (HAZARDS.md).  The main trees
# again, with client.py --socket.

load ../helpers

setup() {
    tree_setup
    TREE_CLIENT_OPTS=(--socket)
}

@test "tree/socket: sh -c 'echo; exec SERVER'" {
    tree_check tree JUNK-sh JUNK-server-write JUNK-server-printf -- \
        sh -c 'echo JUNK-sh; exec "$0"' tests/bin/tree_server
}

@test "tree/socket: dash with echo >&2, \$(...) and exec 3< file, then exec" {
    printf 'line\n' >"$BATS_TEST_TMPDIR/file"
    tree_check c JUNK-dash JUNK-server-write -- \
        dash -c 'echo JUNK-dash; echo banner >&2; x=$(/bin/echo c); exec 3< "$1"; exec "$0" "$x"' tests/bin/tree_server "$BATS_TEST_TMPDIR/file"
}

@test "tree/socket: bash script, capture used, server run without exec" {
    tree_check script-captured JUNK-script-banner JUNK-server-write -- \
        tests/fixtures/tree_script.bash tests/bin/tree_server
}

@test "tree/socket: pyenv-like shim and a Python server" {
    tree_check tree JUNK-shim-1 JUNK-shim-exec-1 JUNK-pyserver-print -- \
        tests/fixtures/tree_shim.bash tests/fixtures/tree_server.py
}

@test "tree/socket: Python parent, vfork path" {
    tree_check py-captured JUNK-pyparent-print JUNK-pyparent-after JUNK-server-write -- \
        python3 tests/fixtures/tree_pyparent.py fork tests/bin/tree_server
}

@test "tree/socket: Python parent, posix_spawn path" {
    tree_check py-captured JUNK-pyparent-print JUNK-pyparent-after JUNK-server-write -- \
        python3 tests/fixtures/tree_pyparent.py spawn tests/bin/tree_server
}

@test "tree/socket: npx-style Node parent and a Node server" {
    tree_check tree JUNK-npx-notice JUNK-npx-after JUNK-nodeserver-log -- \
        node tests/fixtures/tree_npx.js --shell tests/fixtures/tree_server.js
}

@test "tree/socket: real npx --offline of the local package" {
    tree_check tree JUNK-pkg-notice JUNK-pkgserver-log -- \
        npx --offline --yes ./tests/fixtures/tree_pkg
}

@test "tree/socket: C parent, posix_spawnp with a writing thread" {
    tree_check tree JUNK-thread JUNK-spawn-write JUNK-server-write -- \
        tests/bin/tree_spawn thread tests/bin/tree_server
    assert_stdout_lacks JUNK-thread
}

@test "tree/socket: helpers to a pipe, /dev/null and stderr, system and popen, then children after the gate" {
    expect_frames_with tree "$(notification captured-after)" "$(notification child-after)" "$(notification system-after)"
    TREE_BEFORE=pipe,devnull,stderr,system,popen,reopen TREE_AFTER=capture,child,system tree_run tests/bin/tree_server
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-system JUNK-popen REDIR-stderr-fork "tree_server: pipe got [pipe-fork] [pipe-popen] [pipe-spawn]"
    assert_nowhere JUNK-devnull JUNK-reopen
}

@test "tree/socket: bash server answering with jq, captures after the gate" {
    expect_frames_with tree "$(notification captured-after)" "$(notification child-after)"
    TREE_ANSWER=jq TREE_AFTER=1 tree_run tests/fixtures/tree_server.bash
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-bashserver-echo JUNK-bashserver-external
}

@test "tree/socket: EOF promptly with a background child holding /dev/null" {
    export TREE_PIDFILE="$BATS_TEST_TMPDIR/pids"
    TREE_CLIENT_OPTS=(--socket --eof-within 10)
    expect_frames tree
    TREE_BEFORE=bgexec,bgreopen tree_run tests/bin/tree_server
    local pid
    while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$TREE_PIDFILE"
    assert_status 0
    assert_stdout_frames
}
