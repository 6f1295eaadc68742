#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Strict mode (stdiogate --strict): servers that write junk on stdout while
# they serve.  Each test runs the server unwrapped (the junk is on stdout: the
# test can fail), then under --strict: the junk is on stderr, and stdout is
# byte for byte the protocol messages.

load ../strict_helpers

setup() {
    strict_wrapper
}

TOOLCALL='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run","arguments":{}}}'
SHUTDOWN='{"jsonrpc":"2.0","id":2,"method":"shutdown"}'

@test "strict: Python printing per request" {
    JUNK=("py-request-junk initialize" "py-request-junk ping")
    both --line "$INIT" --line "$PING" -- "$PYTHON" "$SRV" print
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "strict: JSON log lines without jsonrpc (structlog-like) go to stderr" {
    JUNK=('{"event": "handling request", "level": "info", "logger": "srv", "method": "initialize"}'
          '{"event": "handling request", "level": "info", "logger": "srv", "method": "ping"}')
    both --line "$INIT" --line "$PING" -- "$PYTHON" "$SRV" log
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "strict: Node console.log and pino-like JSON lines per request" {
    JUNK=("node-request-junk initialize" "node-request-junk ping" '"hostname":"h","msg":"handled ping"}')
    both --line "$INIT" --line "$PING" -- node "$FIX/strict_node_server.js"
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "strict: a static Go server (CGO_ENABLED=0) printing per request" {
    GO_SRV=$ROOT/build/strict/strict_go
    [ -x "$GO_SRV" ] || make -C "$ROOT" -s strict-go >&2
    # static: an ELF program with no interpreter (readelf: binutils, which gcc brings)
    readelf -l "$GO_SRV" >"$BATS_TEST_TMPDIR/phdrs"
    ! grep -q INTERP "$BATS_TEST_TMPDIR/phdrs" || false
    JUNK=(go-banner-junk "go-request-junk initialize" "go-request-junk ping")
    both --line "$INIT" --line "$PING" -- "$GO_SRV"
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    # strict mode guards it: no "not guarded" warning
    assert_stderr_lacks "warning"
}

@test "strict: a Perl server whose buffered banner leaves with the first answer" {
    JUNK=(perl-banner-junk)
    both --line "$INIT" --line "$PING" -- perl "$FIX/strict_perl_server.pl"
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "strict: junk glued in front of a message on its line is split off" {
    JUNK=("progress 50%")
    ungated --line "$INIT" --line "$PING" --frames 0 -- "$PYTHON" "$SRV" glued
    assert_status 0
    assert_stdout_has "progress 50%{"
    gated --line "$INIT" --line "$PING" -- "$PYTHON" "$SRV" glued
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    # both pieces, in order, nothing else of them
    [ "$(grep -o 'progress 50%' "$ERR" | wc -l)" -eq 2 ]
}

@test "strict: a tool call whose child (sh -c 'echo ...') inherits stdout" {
    JUNK=(child-junk)
    both --line "$INIT" --line "$TOOLCALL" -- "$PYTHON" "$SRV" child
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer 3 tools/call)"
}

@test "strict: junk at exit (no newline) reaches stderr, exit status 3 preserved" {
    JUNK=(bye-junk)
    ungated --line "$INIT" -- "$PYTHON" "$SRV" exitjunk=3
    assert_status 3
    assert_stdout_has bye-junk
    gated --line "$INIT" -- "$PYTHON" "$SRV" exitjunk=3
    assert_status 3
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)"
}

@test "strict: 1 MiB of binary junk without a newline, then an answer" {
    ungated --line "$INIT" --frames 0 -- "$PYTHON" "$SRV" binary=1048576
    assert_status 0
    [ "$(stat -c %s "$OUT")" -gt 1048576 ]
    gated --line "$INIT" -- "$PYTHON" "$SRV" binary=1048576
    assert_status 0
    assert_frames "$(answer 0 initialize)"
    # the junk, every byte of it, in order, on stderr
    "$PYTHON" -c '
import sys
junk = bytes((i * 7 + 3) % 256 for i in range(1048576)).replace(b"\n", b"\0")
err = open(sys.argv[1], "rb").read()
sys.exit(0 if junk in err else 1)' "$ERR" || { echo "binary junk not on stderr" >&2; show_run; false; }
}

@test "strict: 8 MiB answers pass byte for byte, junk around them goes to stderr (pipes and sockets)" {
  for how in --no-sockets --sockets; do
    JUNK=('"event": "handling request"' "py-request-junk ping")
    gated ${how/--no-sockets/} --timeout 120 --line "$INIT" --line "$PING" -- "$PYTHON" "$SRV" big=8388608 log print
    assert_status 0
    assert_junk_on_stderr
    want=$BATS_TEST_TMPDIR/want-big
    "$PYTHON" -c '
import json, sys
t = "x" * 8388608
for i, m in ((0, "initialize"), ("p1", "ping")):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": {"echo": m, "text": t}}, separators=(",", ":")) + "\n")' >"$want"
    assert_file_stdout "$want"
  done
}

@test "strict: a clean server's stdout passes byte-identical (cmp against unwrapped)" {
    ungated --line "$INIT_TRICKY" --line "$PING" --line "$INITIALIZED" --line "$DISCOVER" --frames 3 \
        -- "$PYTHON" "$SRV"
    assert_status 0
    cp "$OUT" "$BATS_TEST_TMPDIR/unwrapped"
    [ -s "$BATS_TEST_TMPDIR/unwrapped" ]
    gated --line "$INIT_TRICKY" --line "$PING" --line "$INITIALIZED" --line "$DISCOVER" --frames 3 \
        -- "$PYTHON" "$SRV"
    assert_status 0
    assert_file_stdout "$BATS_TEST_TMPDIR/unwrapped"
    [ ! -s "$ERR" ] || { echo "stderr not empty" >&2; show_run; false; }
}

@test "strict: an LSP server writing junk between frames (auto and --protocol framed)" {
    for opts in "" "--protocol framed"; do
        STRICT_OPTS=$opts strict_wrapper
        JUNK=(lsp-junk-between)
        both --framing lsp --lsp "$LSP_INIT" --lsp "$SHUTDOWN" -- "$PYTHON" "$SRV" framed
        assert_status 0
        assert_junk_on_stderr
        assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")$(lsp_frame "$(answer 2 shutdown)")"
        [ "$(grep -c lsp-junk-between "$ERR")" -eq 2 ]
    done
}

@test "strict: the library diverts nothing: the filter sees every byte the server writes (the default mode: the library does)" {
    JUNK=(py-import-junk py-module-junk)
    both --line "$INIT" -- "$PYTHON" "$FIX/core_py_server.py" readline
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)"
    STDIOGATE_DEBUG=3 gated --line "$INIT" -- "$PYTHON" "$FIX/core_py_server.py" readline
    assert_status 0
    if [ "${STRICT_VIA:-}" = guard ]; then
        # the default mode (STRICT_VIA=guard): no filter; the library diverts
        # until the first message, then its guard watches the wire
        assert_stderr_has "diverting stdout" "gate opened by read" "guard: keeping what is not protocol"
        assert_stderr_lacks "strict: "
        return
    fi
    # the library (preloaded) finds no wire named: it diverts nothing ...
    assert_stderr_lacks "diverting stdout" "gate opened by"
    # ... and the filter took the startup output as junk itself
    grep -qE "strict: end of the server's output; [1-9][0-9]* bytes of junk in [1-9]" "$ERR" ||
        { show_run; false; }
}

@test "strict: socketpairs for stdin and stdout (as Node-based clients give them)" {
    JUNK=("py-request-junk initialize" "py-request-junk ping")
    both --sockets --line "$INIT" --line "$PING" -- "$PYTHON" "$SRV" print log
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "strict: stdin and stdout one socket (inetd style): closing stdin is not the client going away" {
    JUNK=("py-request-junk initialize" "py-request-junk ping")
    both --one-socket --line "$INIT" --line "$PING" -- "$PYTHON" "$SRV" print
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "strict: a server that moves stdout to a private copy (MCP Python SDK v2 style)" {
    gated --line "$INIT" --line "$PING" -- "$PYTHON" "$FIX/core_py_server.py" sdk2
    assert_status 0
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_stderr_has py-post-junk py-import-junk
}

@test "strict: a long committed line reaches a wire that takes no splice (a file opened O_APPEND) whole" {
    cd "$BATS_TEST_TMPDIR"
    "$PYTHON" -c '
import json, sys
t = "y" * 300000
sys.stdout.write(json.dumps({"result": {"text": t}, "jsonrpc": "2.0", "id": 1}) + "\n")
sys.stdout.write("junk after\n" + json.dumps({"jsonrpc": "2.0", "id": 2, "result": {}}) + "\n")' >input
    grep -v '^junk after$' input >want
    echo "earlier content" >wire
    echo "earlier content" | cat - want >want-appended
    tag=t$$-$BATS_TEST_NUMBER
    "$STDIOGATE_WRAPPER" -- "$PYTHON" "$FIX/strict_emit.py" input "tag=$tag" </dev/null >>wire 2>err
    # a file gives no end of file to wait for: wait for the filter (docs/STRICT.md, Limits of strict mode)
    assert_no_filter "$tag"
    cmp want-appended wire
    [ "$(cat err)" = "junk after" ]
}

@test "strict: 3 MiB LSP frames (bodies spliced) pass byte for byte, junk between them goes to stderr (pipes and sockets)" {
  for how in --no-sockets --sockets; do
    gated ${how/--no-sockets/} --timeout 120 --framing lsp --lsp "$LSP_INIT" --lsp "$SHUTDOWN" -- "$PYTHON" "$SRV" framed big=3145728
    assert_status 0
    [ "$(grep -c lsp-junk-between "$ERR")" -eq 2 ]
    want=$BATS_TEST_TMPDIR/want-lsp
    "$PYTHON" -c '
import json, sys
t = "x" * 3145728
for i, m in ((1, "initialize"), (2, "shutdown")):
    b = json.dumps({"jsonrpc": "2.0", "id": i, "result": {"echo": m, "text": t}}, separators=(",", ":")).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)' >"$want"
    assert_file_stdout "$want"
  done
}
