# SPDX-License-Identifier: MIT
# helpers.bash - shared helpers for the stdiogate bats tests (`load helpers`).
#
# Stable interface (other test files rely on these names; add, don't rename):
#
# Variables (set on load):
#   ROOT            the source tree (parent of tests/)
#   TESTS           $ROOT/tests
#   BIN             $ROOT/tests/bin (built fixtures: make fixtures)
#   FIX             $ROOT/tests/fixtures
#   CLIENT          $ROOT/tests/client.py
#   PYTHON          the real python3 interpreter (see real_python): runs the
#                   client and Python fixtures without the pyenv shim
#   STDIOGATE_LIB   absolute path of libstdiogate.so (exported)
#   STDIOGATE_WRAPPER  $ROOT/stdiogate if it exists and GATE_EMULATE is not
#                   set, else empty; exported for client.py --gate
#   OUT, ERR        files where `serve` leaves the command's stdout / stderr
#                   ($BATS_TEST_TMPDIR/out, .../err)
#   INIT            a real MCP initialize request (TypeScript SDK client:
#                   "jsonrpc" and "id":0 last), no newline
#   INIT_TRICKY     an initialize whose strings hold braces, brackets,
#                   escaped quotes and backslashes ("id":7), no newline
#   PING            {"jsonrpc":"2.0","id":"p1","method":"ping"}
#   DISCOVER        {"jsonrpc":"2.0","id":1,"method":"server/discover",...}
#   INITIALIZED     the notifications/initialized notification
#   LSP_INIT        an LSP initialize body ("id":1; frame it with --lsp)
#   DAP_INIT        a DAP initialize request body ("seq":1; frame with --lsp)
#
# Functions:
#   real_python         prints the real python3 interpreter (not the pyenv
#                       shim), resolved once per run
#   gate_run CMD...     runs CMD as the wrapper would, in this shell's fds:
#                       "$STDIOGATE_WRAPPER" -- CMD..., or (no wrapper / GATE_EMULATE=1)
#                       LD_PRELOAD=$STDIOGATE_LIB (+ existing), STDIOGATE_WIRE
#                       = dev:ino of fd 1, PYTHONUNBUFFERED=1 unless set
#   serve OPT... -- CMD...   $PYTHON client.py --out $OUT --err $ERR OPT...
#                       -- CMD...; sets $status (never fails by itself)
#   gated OPT... -- CMD...   serve --gate ...
#   ungated OPT... -- CMD... serve ... (the same run without stdiogate)
#   both OPT... -- CMD...    ungated, asserting status 0 and every string of
#                       the array JUNK on stdout (the test can fail), then
#                       gated; the test asserts on the gated run
#   answer ID METHOD    prints the frame core fixtures answer with (no newline):
#                       {"jsonrpc":"2.0","id":ID,"result":{"echo":"METHOD"}}
#                       ID verbatim (1, 0, "p1" with its quotes)
#   lsp_frame BODY      prints "Content-Length: N\r\n\r\n"BODY
#   assert_status N     $status is N
#   assert_frames FRAME...   stdout ($OUT) is byte for byte FRAME\n...; each
#                       FRAME must be a JSON object with a "jsonrpc" member
#                       (a DAP "response" is accepted too); no FRAME: empty
#   assert_stdout_bytes STRING  stdout is exactly STRING (for LSP framing)
#   assert_stdout_has TEXT...   / assert_stdout_lacks TEXT...
#   assert_stderr_has TEXT...   / assert_stderr_lacks TEXT...
#                       fixed-string searches in $OUT / $ERR
#   assert_junk_on_stderr       every string of JUNK is in $ERR, none in $OUT
#   show_run            prints status, stdout and stderr (called on failure)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TESTS=$ROOT/tests
BIN=$TESTS/bin
FIX=$TESTS/fixtures
CLIENT=$TESTS/client.py
export STDIOGATE_LIB=$ROOT/libstdiogate.so
if [ -z "${GATE_EMULATE:-}" ] && [ -x "$ROOT/stdiogate" ]; then
    export STDIOGATE_WRAPPER=$ROOT/stdiogate
else
    export STDIOGATE_WRAPPER=
fi
OUT=${BATS_TEST_TMPDIR:-/tmp}/out
ERR=${BATS_TEST_TMPDIR:-/tmp}/err
JUNK=()

INIT='{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"claude-code","version":"1.0.83"}},"jsonrpc":"2.0","id":0}'
INIT_TRICKY='{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"odd } client ] \" { [ \\\\","title":"\\u007d\\\\\"}"}}}'
PING='{"jsonrpc":"2.0","id":"p1","method":"ping"}'
DISCOVER='{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"supportedVersions":["2026-07-28"]}}'
INITIALIZED='{"jsonrpc":"2.0","method":"notifications/initialized"}'
LSP_INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":4242,"rootUri":"file:///tmp/project","capabilities":{"textDocument":{"hover":{"contentFormat":["markdown","plaintext"]}}},"trace":"off"}}'
DAP_INIT='{"seq":1,"type":"request","command":"initialize","arguments":{"clientID":"vscode","adapterID":"mock","linesStartAt1":true,"pathFormat":"path"}}'

real_python() {
    local cache=${BATS_RUN_TMPDIR:-/tmp}/stdiogate-real-python
    if [ ! -s "$cache" ]; then
        python3 -c 'import sys; print(sys.executable)' >"$cache.$$" && mv "$cache.$$" "$cache"
    fi
    cat "$cache"
}

PYTHON=$(real_python) || PYTHON=python3

gate_run() {
    if [ -n "$STDIOGATE_WRAPPER" ]; then
        "$STDIOGATE_WRAPPER" -- "$@"
        return
    fi
    local me=$BASHPID wire
    wire=$(stat -L -c %d:%i "/proc/$me/fd/1" 2>/dev/null) || wire=
    (
        export LD_PRELOAD="$STDIOGATE_LIB${LD_PRELOAD:+ $LD_PRELOAD}"
        export PYTHONUNBUFFERED="${PYTHONUNBUFFERED-1}"
        if [ -n "$wire" ]; then export STDIOGATE_WIRE=$wire; fi
        exec "$@"
    )
}

serve() {
    status=0
    "$PYTHON" "$CLIENT" --out "$OUT" --err "$ERR" "$@" || status=$?
    return 0
}

gated() { serve --gate "$@"; }
ungated() { serve "$@"; }

both() {
    ungated "$@"
    if [ "$status" -ne 0 ]; then
        echo "unwrapped run: status $status" >&2; show_run; return 1
    fi
    local j
    for j in "${JUNK[@]}"; do
        if ! grep -qF -- "$j" "$OUT"; then
            echo "unwrapped run: '$j' not on stdout: the test could not fail" >&2
            show_run; return 1
        fi
    done
    gated "$@"
}

answer() { printf '{"jsonrpc":"2.0","id":%s,"result":{"echo":"%s"}}' "$1" "$2"; }

lsp_frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }

show_run() {
    {
        echo "--- status: ${status:-?}"
        echo "--- stdout ($OUT):"; od -c "$OUT" 2>/dev/null | head -40
        echo "--- stderr ($ERR):"; cat "$ERR" 2>/dev/null | head -60
        echo "---"
    } >&2
}

assert_status() {
    if [ "$status" != "$1" ]; then
        echo "expected exit status $1, got $status" >&2; show_run; return 1
    fi
}

assert_frames() {
    local f want=${BATS_TEST_TMPDIR:-/tmp}/want
    : >"$want"
    for f in "$@"; do
        if ! "$PYTHON" -c 'import json,sys; v=json.loads(sys.argv[1]); sys.exit(not (isinstance(v,dict) and ("jsonrpc" in v or v.get("type")=="response")))' "$f"; then
            echo "test bug: expected frame is not a JSON-RPC object: $f" >&2; return 1
        fi
        printf '%s\n' "$f" >>"$want"
    done
    if ! cmp -s "$want" "$OUT"; then
        echo "stdout is not exactly the expected frames" >&2
        echo "--- expected:" >&2; cat "$want" >&2
        show_run; return 1
    fi
}

assert_stdout_bytes() {
    local want=${BATS_TEST_TMPDIR:-/tmp}/want
    printf '%s' "$1" >"$want"
    if ! cmp -s "$want" "$OUT"; then
        echo "stdout is not exactly the expected bytes" >&2
        echo "--- expected:" >&2; od -c "$want" | head -20 >&2
        show_run; return 1
    fi
}

_assert_in() {  # _assert_in FILE has|lacks NAME TEXT...
    local file=$1 how=$2 name=$3 t; shift 3
    for t in "$@"; do
        if grep -qF -- "$t" "$file"; then
            [ "$how" = has ] && continue
            echo "$name unexpectedly contains: $t" >&2
        else
            [ "$how" = lacks ] && continue
            echo "$name does not contain: $t" >&2
        fi
        show_run; return 1
    done
}
assert_stdout_has() { _assert_in "$OUT" has stdout "$@"; }
assert_stdout_lacks() { _assert_in "$OUT" lacks stdout "$@"; }
assert_stderr_has() { _assert_in "$ERR" has stderr "$@"; }
assert_stderr_lacks() { _assert_in "$ERR" lacks stderr "$@"; }

assert_junk_on_stderr() {
    assert_stderr_has "${JUNK[@]}" && assert_stdout_lacks "${JUNK[@]}"
}
