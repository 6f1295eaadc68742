#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 24: the default mode runs a program the library cannot enter under the
# strict filter by itself: at the start (the wrapper chooses) and at every
# exec or spawn that hands such a program the wire while the gate is shut
# (the library chooses).  Real programs: MCP servers built with the Go SDK
# (static and cgo), a static C server, real Bun, a musl server; started
# directly, through `sh -c 'exec ...'`, a Node launcher (spawn, stdio
# 'inherit'), a Python launcher (subprocess.run: fork+exec and posix_spawn)
# and npx of a local package whose bin is a Go binary.
# Each case runs unwrapped first: the junk is on stdout there (the test can
# fail), and its frames are what the wrapped run must put on stdout, byte
# for byte; wrapped, the junk is on stderr, the exit status is the same, the
# level-2 line says which choice was made, and no filter is left running.

load ../strict_helpers

setup() {
    cd "$ROOT" || return 1
    OUT="$BATS_TEST_TMPDIR/out"
    ERR="$BATS_TEST_TMPDIR/err"
    EXPECTED="$BATS_TEST_TMPDIR/expected"
}

GO_STATIC="$ROOT/build/sdk/bin/noisy-go-static"
GO_CGO="$ROOT/build/sdk/bin/noisy-go-cgo"

bun_binary() {
    local b
    for b in "$TESTS"/node_modules/bun/bin/bun.exe "$TESTS"/node_modules/@oven/bun-linux-*/bin/bun; do
        if [ -x "$b" ] && "$b" --version >/dev/null 2>&1; then echo "$b"; return 0; fi
    done
    echo "no working Bun in $TESTS/node_modules (make npm-deps)" >&2
    return 1
}

# server NAME: S (the command), C (the client's messages), KIND (the level-2
# words for it).
server() {
    case $1 in
        static) S=("$BIN/tree_server_static"); C=(--mcp); KIND="a static program" ;;
        # 30 arguments: an argv of 31 entries, the filter's of 35
        static-args) S=("$BIN/tree_server_static" $(seq -f 'arg%g' 30)); C=(--mcp)
                     KIND="a static program" ;;
        go-static) S=("$GO_STATIC"); C=(--mcp); KIND="a static program" ;;
        go-cgo) S=("$GO_CGO"); C=(--mcp); KIND="a Go program" ;;
        bun) S=("$(bun_binary)" "$FIX/core_bun_server.js"); C=(--line "$INIT" --line "$PING"); KIND="a Bun program" ;;
        musl) S=("$BIN/setups_srv_musl" 128); C=(--line "$INIT" --line "$PING")
              KIND="a program whose loader cannot load libstdiogate.so" ;;
    esac
    [ -x "${S[0]}" ] || { echo "missing ${S[0]}" >&2; return 1; }
}

# launcher NAME: L (the command in front of the server), AT (where the
# choice is made: start or exec).
launcher() {
    case $1 in
        direct) L=(); AT=start ;;
        sh) L=(sh -c 'exec "$0" "$@"'); AT=exec ;;
        node) L=(node "$FIX/tree_npx.js"); AT=exec ;;
        py-fork) L=("$PYTHON" "$FIX/auto_pylaunch.py" fork); AT=exec ;;
        py-spawn) L=("$PYTHON" "$FIX/auto_pylaunch.py" spawn); AT=exec ;;
        vfork) L=("$BIN/tree_vfork" vfork); AT=exec ;;
        # 300 more variables: an environment larger than the copies on the stack
        vfork-env) L=(env TREE_VFORK_ENV=300 "$BIN/tree_vfork" vfork); AT=exec ;;
        spawn-chdir) L=("$BIN/tree_vfork" spawn-chdir); AT=exec ;;
        spawn-fchdir) L=("$BIN/tree_vfork" spawn-fchdir); AT=exec ;;
    esac
}

session() {
    serve --session --stderr-file --timeout 60 --eof-within 60 "$@"
}

# The unwrapped run's frames into $EXPECTED, its junk lines into $JUNKFILE;
# fails unless there are two frames and some junk.
split_unwrapped() {
    JUNKFILE="$BATS_TEST_TMPDIR/junk"
    "$PYTHON" - "$OUT" "$EXPECTED" "$JUNKFILE" <<'PY'
import json, sys
frames, junk = [], []
for line in open(sys.argv[1], "rb").read().split(b"\n"):
    try:
        ok = isinstance(json.loads(line), dict) and b'"jsonrpc"' in line
    except ValueError:
        ok = False
    (frames if ok else junk).append(line)
open(sys.argv[2], "wb").write(b"".join(f + b"\n" for f in frames))
open(sys.argv[3], "wb").write(b"".join(j + b"\n" for j in junk if j))
if len(frames) != 2 or not any(junk):
    sys.exit(f"unwrapped: {len(frames)} frames, junk {junk!r}: the test could not fail")
PY
}

# auto_case SERVER LAUNCHER [sockets]: the client's stdin and stdout are
# pipes, or socketpairs (as Node-based clients give them).
auto_case() {
    server "$1"
    launcher "$2"
    local cmd=("${L[@]}" "${S[@]}") unwrapped_status line sock=()
    [ "${3:-}" = sockets ] && sock=(--sockets)
    session "${sock[@]}" "${C[@]}" -- "${cmd[@]}"
    unwrapped_status=$status
    split_unwrapped || { show_run; return 1; }
    STDIOGATE_DEBUG=2 session "${sock[@]}" "${C[@]}" -- "$ROOT/stdiogate" "${cmd[@]}"
    [ "$status" = "$unwrapped_status" ] || { echo "status $status, unwrapped $unwrapped_status" >&2; show_run; return 1; }
    assert_file_stdout "$EXPECTED"
    while IFS= read -r line; do
        grep -qF -- "$line" "$ERR" || { echo "junk line not on stderr: $line" >&2; show_run; return 1; }
    done <"$JUNKFILE"
    if [ "$AT" = start ]; then
        assert_stderr_has "is $KIND: strict mode"
    else
        assert_stderr_has "is $KIND: starting it under the strict filter"
    fi
    assert_stderr_lacks "warning"
    assert_no_filter "${S[0]##*/}"
}

@test "auto strict: each program the library cannot enter, started directly (the wrapper chooses)" {
    row_table auto_case "static direct" "go-static direct" "go-cgo direct" "bun direct" "musl direct"
}

@test "auto strict: each such program through sh -c 'exec ...' (the library chooses at exec)" {
    row_table auto_case "static sh" "go-static sh" "go-cgo sh" "bun sh" "musl sh"
}

@test "auto strict: each such program through a Node launcher (spawn, stdio 'inherit')" {
    row_table auto_case "static node" "go-static node" "go-cgo node" "bun node" "musl node"
}

@test "auto strict: each such program through a Python launcher (subprocess.run, fork+exec)" {
    row_table auto_case "static py-fork" "go-static py-fork" "go-cgo py-fork" "bun py-fork" "musl py-fork"
}

@test "auto strict: each such program through a Python launcher (subprocess.run, posix_spawn)" {
    row_table auto_case "static py-spawn" "go-static py-spawn" "go-cgo py-spawn" "bun py-spawn" "musl py-spawn"
}

# Issue 42: the copies an exec makes (the environment without our LD_PRELOAD
# entry, the filter's argv) did not fit on the stack of a vfork child and
# were not made: a musl program got our LD_PRELOAD entry and could not start
# (status 127), a static one with 31 arguments got the wire unguarded; a
# posix_spawn chdir file action (Rust's Command::current_dir) was read as a
# close of fd 1 and the program went unguarded.
@test "auto strict: through a vfork child's exec, with 300 more variables and with 31 arguments" {
    row_table auto_case "musl vfork-env" "static vfork-env" "static-args vfork" "static-args vfork-env" \
        "musl vfork"
}

# The chdir action was read as a close of the descriptor its path's address
# makes as an int: at or under 1 in about half of all runs (ASLR), so the
# row is run ten times (a run without the fix passes them all once in 1024).
@test "auto strict: through posix_spawn with a chdir or fchdir file action (Rust's Command::current_dir)" {
    local rows=("static spawn-fchdir" "musl spawn-chdir" "static-args spawn-chdir") i
    for i in $(seq 10); do rows+=("static spawn-chdir"); done
    row_table auto_case "${rows[@]}"
}

@test "auto strict: over socketpairs, each such program directly and through sh -c 'exec ...'" {
    row_table auto_case "static direct sockets" "go-static direct sockets" "go-cgo direct sockets" \
        "bun direct sockets" "musl direct sockets" "static sh sockets" "go-cgo sh sockets" \
        "bun sh sockets" "musl sh sockets"
}

@test "auto strict: npx of a local package whose bin is a Go binary (a Node shim, then sh, then Go)" {
    local pkg="$BATS_TEST_TMPDIR/gopkg"
    mkdir -p "$pkg"
    cp "$GO_CGO" "$pkg/noisy-go"
    printf '{"name":"noisy-go-pkg","version":"1.0.0","private":true,"bin":{"noisy-go":"noisy-go"}}\n' >"$pkg/package.json"
    S=("$pkg/noisy-go")
    local cmd=(npx --offline --yes "$pkg")
    session --mcp -- "${cmd[@]}"
    local unwrapped_status=$status
    split_unwrapped || { show_run; return 1; }
    STDIOGATE_DEBUG=2 session --mcp -- "$ROOT/stdiogate" "${cmd[@]}"
    [ "$status" = "$unwrapped_status" ]
    assert_file_stdout "$EXPECTED"
    assert_stderr_has "noisy-go-sdk: starting MCP server on stdio" "is a Go program: starting it under the strict filter"
    assert_no_filter noisy-go
}

# The filter that runs such a program takes the wrapper's marker
# (STDIOGATE_WIRE=DEV:INO) out of its environment: the program sees the
# caller's environment and LD_PRELOAD, no STDIOGATE_ variable (docs/CONTRACT.md:
# the marker is the library's to remove, and the library never runs there).
@test "auto strict: a static program started directly under the filter finds no STDIOGATE_ variable in its environment, the caller's variables as they were" {
    local dump=$BIN/fam_envdump_static d=$BATS_TEST_TMPDIR
    env -i PATH=/usr/bin:/bin HOME=/nowhere AUTO_ENV=kept "$dump" "$d/plain.env" </dev/null | cat >"$d/plain.out"
    [ "$(cat "$d/plain.out")" = fam-envdump-output ]
    # (the same caller, with STDIOGATE_DEBUG=2 for the level-2 line)
    env -i PATH=/usr/bin:/bin HOME=/nowhere AUTO_ENV=kept STDIOGATE_DEBUG=2 \
        "$ROOT/stdiogate" "$dump" "$d/wrapped.env" </dev/null 2>"$d/err" | cat >"$d/wrapped.out"
    # (under the filter: its line is junk, on stderr)
    grep -q "is a static program: strict mode" "$d/err" || { cat "$d/err" >&2; false; }
    [ ! -s "$d/wrapped.out" ] && grep -qx fam-envdump-output "$d/err"
    tr '\0' '\n' <"$d/plain.env" | sort >"$d/plain.sorted"
    { cat "$d/plain.sorted"; echo "LD_PRELOAD=$ROOT/libstdiogate.so"; echo STDIOGATE_DEBUG=2; } | sort >"$d/want"
    tr '\0' '\n' <"$d/wrapped.env" | sort >"$d/got"
    diff "$d/want" "$d/got" >&2
}

@test "auto strict: the pid the client started is the server's, directly and through sh -c 'exec ...'" {
    local how pidfile="$BATS_TEST_TMPDIR/pid"
    for how in direct sh; do
        launcher "$how"
        TREE_SHOW_PID=1 session --mcp --pid-file "$pidfile" -- "$ROOT/stdiogate" "${L[@]}" "$BIN/tree_server_static"
        assert_status 0
        assert_stderr_has "tree_server: pid $(cat "$pidfile")"
    done
}

@test "auto strict: --gate-only and STDIOGATE_AUTO_STRICT=0 keep the old way: a warning, the program unguarded" {
    server static
    for opt in --gate-only; do
        session --mcp -- "$ROOT/stdiogate" "$opt" "${S[@]}"
        assert_status 0
        assert_stdout_has JUNK-server-write
        assert_stderr_has "warning: $BIN/tree_server_static is statically linked"
    done
    STDIOGATE_AUTO_STRICT=0 session --mcp -- "$ROOT/stdiogate" sh -c 'exec "$0"' "${S[@]}"
    assert_status 0
    assert_stdout_has JUNK-server-write
    assert_stderr_lacks "strict"
}

@test "auto strict: --strict given for such a program: the one filter asked for, no choice or warning of the wrapper's" {
    server static
    session --mcp -- "${S[@]}"
    assert_status 0
    assert_stdout_has JUNK-server-write
    STDIOGATE_DEBUG=2 session --mcp -- "$ROOT/stdiogate" --strict "${S[@]}"
    assert_status 0
    assert_stdout_lacks JUNK
    assert_stderr_has JUNK-server-write
    assert_stderr_lacks "strict mode" "warning"
    [ "$(grep -c 'strict: filtering' "$ERR")" = 1 ] || { show_run; false; }
    # --gate-only asks for no filter of the wrapper's choosing, and --strict
    # for one: the filter guards the program, nothing to warn about
    session --mcp -- "$ROOT/stdiogate" --strict --gate-only "${S[@]}"
    assert_status 0
    assert_stdout_lacks JUNK
    assert_stderr_has JUNK-server-write
    assert_stderr_lacks "warning"
}

@test "auto strict: a program whose stdout is not the wire (a pipe of the launcher's) is not filtered" {
    # The launcher captures a musl program's stdout: the junk it reads back
    # is the same bytes wrapped as unwrapped (it prints them on stderr).
    local script='printf "%s\n" "$0" | "$1" 100 | head -c 64 >&2; exec "$2"'
    session --mcp -- sh -c "$script" "$INIT" "$BIN/setups_srv_musl" "$BIN/tree_server"
    assert_status 0
    assert_stderr_has "setups-junk 00000000 ......"
    STDIOGATE_DEBUG=2 session --mcp -- "$ROOT/stdiogate" sh -c "$script" "$INIT" "$BIN/setups_srv_musl" "$BIN/tree_server"
    assert_status 0
    assert_stderr_has "setups-junk 00000000 ......"
    assert_stderr_lacks "strict"
    # it still runs without our LD_PRELOAD entry, and level 2 says so
    assert_stderr_has "setups_srv_musl has a loader that cannot load libstdiogate.so: it runs without it"
}

@test "auto strict: a posix_spawn whose file actions point fd 1 at a pipe (Python capturing a musl program) is not filtered" {
    local captured
    session --mcp -- "$PYTHON" "$FIX/auto_pylaunch.py" capture "$BIN/setups_srv_musl" 128 "$BIN/tree_server"
    assert_status 0
    captured=$(grep '^auto_pylaunch: captured' "$ERR")
    [[ "$captured" == *"setups-junk 00000001"*'{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize"}}'* ]] || { show_run; false; }
    STDIOGATE_DEBUG=2 session --mcp -- "$ROOT/stdiogate" "$PYTHON" "$FIX/auto_pylaunch.py" capture "$BIN/setups_srv_musl" 128 "$BIN/tree_server"
    assert_status 0
    assert_stderr_has "$captured"
    assert_stderr_lacks "starting it under the strict filter"
}

@test "auto strict: an argv[0] that is not the program's file (bash exec -a) stays the program's" {
    # The filter execs the file the library resolved, with the argv it was
    # given: argv[0] is no name to search for.
    session --mcp -- bash -c 'exec -a renamed-server "$0"' "$BIN/tree_server_static"
    assert_status 0
    STDIOGATE_DEBUG=2 session --mcp -- "$ROOT/stdiogate" bash -c 'exec -a renamed-server "$0"' "$BIN/tree_server_static"
    assert_status 0
    assert_stdout_lacks JUNK
    assert_stderr_has JUNK-server-write "tree_server_static is a static program: starting it under the strict filter"
}

@test "auto strict: a filtered static launcher that execs a static server: one filter for the tree" {
    # tree_exec_static (static: sh starts it under the filter) execs the
    # static server with a raw exec: no library, no second filter.
    STDIOGATE_DEBUG=2 TREE_QUIET=1 session --mcp -- "$ROOT/stdiogate" sh -c 'exec "$0" execv "$1"' "$BIN/tree_exec_static" "$BIN/tree_server_static"
    assert_status 0
    assert_stdout_lacks JUNK
    assert_stderr_has JUNK-server-write "is a static program: starting it under the strict filter"
    [ "$(grep -c 'strict: filtering' "$ERR")" = 1 ] || { show_run; false; }
    assert_no_filter tree_exec_static
}

@test "auto strict: a filter that cannot be started makes no exec fail: the program runs unguarded, with a warning" {
    # An installation without stdiogate-filter: the wrapper keeps the gate
    # for COMMAND, and at the exec the library's filter exec fails.
    local dir="$BATS_TEST_TMPDIR/nofilter"
    mkdir "$dir"
    cp "$ROOT/stdiogate" "$ROOT/stdiogate-check" "$ROOT/libstdiogate.so" "$dir/"
    session --mcp -- "$dir/stdiogate" sh -c 'exec "$0"' "$BIN/tree_server_static"
    assert_status 0
    assert_stdout_has JUNK-server-write
    assert_stderr_has "exec: cannot start the strict filter $dir/stdiogate-filter: $BIN/tree_server_static runs unguarded"
    expect_frames tree
    assert_frames_among_stdout
}
