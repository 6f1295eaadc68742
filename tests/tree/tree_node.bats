#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 3: Node parents.  An npx-style parent that prints its
# own notices and spawns the server with stdio 'inherit', and the real npx
# running a fixture package offline from a local directory (npm's node, then
# `sh -c`, then the package's bin: npm/cli libnpmexec).

load ../helpers

setup() {
    tree_setup
}

@test "tree: npx-style Node parent, notices on stdout, spawn(stdio inherit) of a C server, waits" {
    tree_check tree JUNK-npx-notice JUNK-npx-write JUNK-npx-after JUNK-server-write JUNK-server-printf -- \
        node tests/fixtures/tree_npx.js tests/bin/tree_server
    assert_stderr_has "tree_npx: child exited 0"
}

@test "tree: npx-style Node parent spawning through sh -c (shell: true), Node server" {
    tree_check tree JUNK-npx-notice JUNK-npx-write JUNK-npx-after JUNK-nodeserver-log -- \
        node tests/fixtures/tree_npx.js --shell tests/fixtures/tree_server.js
}

@test "tree: npx-style Node parent spawning a Python server through its pyenv shebang" {
    tree_check tree JUNK-npx-notice JUNK-npx-after JUNK-pyserver-print -- \
        tests/fixtures/tree_npx.js tests/fixtures/tree_server.py
}

npx_pkg() {
    # $1: how npx names the package.
    tree_check tree JUNK-pkg-notice JUNK-pkgserver-log -- \
        npx --offline --yes --loglevel=info "$@"
    # npm's own notices: on stderr, never on the wire.
    assert_stderr_has "npm info using npm@" "npm info ok" "tree_server.js: started as tree"
    assert_stdout_lacks "npm info"
}

@test "tree: real npx --offline running a local package directory (./tests/fixtures/tree_pkg)" {
    npx_pkg ./tests/fixtures/tree_pkg
}

@test "tree: real npx --offline --package=file:DIR BIN" {
    npx_pkg --package="file:$ROOT/tests/fixtures/tree_pkg" tree-pkg
}

@test "tree: real npx under a bash launcher that prints its own banner" {
    tree_check tree JUNK-launcher JUNK-pkg-notice JUNK-pkgserver-log -- \
        bash -c 'echo JUNK-launcher; v=$(node --version); echo "node $v" >&2; exec npx --offline --yes "$@"' \
        bash ./tests/fixtures/tree_pkg
}

@test "tree: Node parent that relays stdin to the server through a pipe (stdio ['pipe', 'inherit', 'inherit'])" {
    local relay='
const { spawn } = require("child_process");
console.log("JUNK-relay-notice");
const c = spawn(process.argv[1], [], { stdio: ["pipe", "inherit", "inherit"] });
process.stdin.pipe(c.stdin);
c.on("exit", (code) => { process.exitCode = code; });'
    tree_check tree JUNK-relay-notice JUNK-server-write JUNK-server-printf -- \
        node -e "$relay" "$ROOT/tests/bin/tree_server"
}
