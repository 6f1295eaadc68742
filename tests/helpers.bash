# SPDX-License-Identifier: MIT
# helpers.bash - the helpers of every stdiogate bats test (`load helpers`),
# around one scripted client, tests/client.py.
#
# Two kinds of run, one client:
#   serve/gated/ungated/both: a session the test scripts message by message
#     (core_*, fault_*): stdout and stderr pipes, the library preloaded as
#     the wrapper would (or the wrapper itself).
#   tree_run/tree_run_plain: the opening a real MCP client makes (--mcp),
#     through ./stdiogate, stderr a regular file, stdout's end of file awaited
#     (tree_*): a process tree between the client and the server.
# Both leave stdout in $OUT, stderr in $ERR and the exit status in $status;
# the same assertions read them.
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
#   STDIOGATE       the wrapper tree_run runs: $TREE_STDIOGATE if set (only
#                   to try the fixtures), else $ROOT/stdiogate
#   EXPECTED        the file expect_frames writes
#   TREE_CLIENT_OPTS  an array of extra client.py options for tree_run
#                   (e.g. --socket, --eof-within 10); empty by default
#
# Functions:
#   real_python         prints the real python3 interpreter (not the pyenv
#                       shim), resolved once per run
#   gate_run CMD...     runs CMD as the wrapper would, in this shell's fds:
#                       "$STDIOGATE_WRAPPER" -- CMD..., or (no wrapper / GATE_EMULATE=1)
#                       LD_PRELOAD=$STDIOGATE_LIB (+ existing), STDIOGATE_WIRE
#                       = dev:ino of fd 1
#   serve OPT... -- CMD...   $PYTHON client.py --out $OUT --err $ERR OPT...
#                       -- CMD...; sets $status (never fails by itself)
#   gated OPT... -- CMD...   serve --gate ...
#   ungated OPT... -- CMD... serve ... (the same run without stdiogate)
#   both OPT... -- CMD...    ungated, asserting status 0 and every string of
#                       the array JUNK on stdout (the test can fail), then
#                       gated; the test asserts on the gated run
#   diverted OPT... -- CMD...  the core case: `both OPT... -- CMD...`, then
#                       status 0 and every string of JUNK on stderr, none on
#                       stdout; the test asserts the frames
#   init_diverted OPT... -- CMD...  diverted --line "$INIT" OPT..., and stdout
#                       is exactly the answer to INIT
#   init_ping_diverted OPT... -- CMD...  diverted --line "$INIT" --line "$PING"
#                       OPT..., and stdout is exactly the answers to both
#   answer ID METHOD    prints the frame core fixtures answer with (no newline):
#                       {"jsonrpc":"2.0","id":ID,"result":{"echo":"METHOD"}}
#                       ID verbatim (1, 0, "p1" with its quotes)
#   lsp_frame BODY      prints "Content-Length: N\r\n\r\n"BODY
#   assert_status N     $status is N
#   assert_frames FRAME...   stdout ($OUT) is byte for byte FRAME\n...; each
#                       FRAME must be a JSON object with a "jsonrpc" member
#                       (a DAP "response" is accepted too); no FRAME: empty
#   assert_stdout_bytes STRING  stdout is exactly STRING (for LSP framing)
#   assert_stderr_bytes STRING  stderr is exactly STRING (no diagnostics: level 1)
#   assert_stdout_has TEXT...   / assert_stdout_lacks TEXT...
#   assert_stderr_has TEXT...   / assert_stderr_lacks TEXT...
#                       fixed-string searches in $OUT / $ERR
#   assert_junk_on_stderr       every string of JUNK is in $ERR, none in $OUT
#   assert_nowhere TEXT...      no TEXT in $OUT nor in $ERR
#   show_run            prints the command, status, stdout and stderr (called
#                       on failure)
#
# How the gate opened (level-2 lines; issue 22: a read path that miscounts
# is otherwise hidden by the fail-safe, which opens the gate at the answer):
#   INIT_BYTES          the count a read path reports for INIT: ${#INIT}
#                       (the detector ends a JSON message at its closing
#                       brace; the newline is not counted)
#   FAILSAFE_WARNING    the fail-safe's level-1 warning (its start)
#   assert_gate_opened_by CALL [BYTES|eof]   $ERR has the level-2 line
#                       `gate opened by CALL after BYTES bytes` (or `... at
#                       end of input` for eof; no BYTES: either, any count),
#                       the whole line, exactly
#   assert_no_failsafe  $ERR has neither `gate opened by ...: the server
#                       answered` nor FAILSAFE_WARNING
#   assert_failsafe CALL   $ERR has `gate opened by CALL: the server
#                       answered` (level 2)
#   EXPECT_FAILSAFE     set (to anything) by a test whose gated run is
#                       expected to be opened by the fail-safe: `diverted`
#                       (and init_diverted, init_ping_diverted) then skip
#                       their assert_no_failsafe.  Unset by default.
#   diverted and the two init_ wrappers run the gated session at
#   STDIOGATE_DEBUG=2 unless the test set STDIOGATE_DEBUG, and assert
#   assert_no_failsafe unless EXPECT_FAILSAFE is set.
#
# The process-tree runs (tree_*.bats; `setup() { tree_setup; }`):
#   tree_setup          checks the build, sets OUT/ERR/EXPECTED, cd $ROOT
#   tree_run CMD...     CMD under $STDIOGATE, as a client starts a server:
#                       client.py --mcp --session --stderr-file --timeout 30
#                       --eof-within 30 "${TREE_CLIENT_OPTS[@]}"; prints
#                       show_run (bats shows it when the test fails)
#   tree_run_plain CMD...  the same without stdiogate (the unwrapped baseline)
#   expect_frames [NAME]   the bytes a correct tree run puts on stdout: the
#                       answers to initialize (serverInfo.name NAME, default
#                       "tree") and to ping, written to $EXPECTED
#   expect_frames_with NAME LINE...  the initialize answer, the LINEs, then
#                       the ping answer
#   notification TEXT   the notifications/message frame the tree fixtures send
#   assert_stdout_frames  $OUT is byte for byte $EXPECTED, and every line of
#                       it is a JSON object with a top-level "jsonrpc"
#   assert_frames_among_stdout  every line of $EXPECTED is a line of $OUT
#                       (an unwrapped run: the frames among the junk)
#   tree_check NAME TAG... -- CMD...  unwrapped, status 0, every TAG on
#                       stdout and the frames among it (the test can fail);
#                       wrapped, status 0, stdout exactly the frames (server
#                       NAME) and every TAG on stderr
#
# The names the tree tests used before the merge still work (the block of
# compatibility names at the end).

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
STDIOGATE=${TREE_STDIOGATE:-$ROOT/stdiogate}
EXPECTED=${BATS_TEST_TMPDIR:-/tmp}/expected
TREE_CLIENT_OPTS=()

real_python() {
    local cache=${BATS_RUN_TMPDIR:-/tmp}/stdiogate-real-python
    if [ ! -s "$cache" ]; then
        python3 -c 'import sys; print(sys.executable)' >"$cache.$$" && mv "$cache.$$" "$cache"
    fi
    cat "$cache"
}

PYTHON=$(real_python) || PYTHON=python3

# skip_unless_ci REASON: for what a machine may lack and no make rule installs
# (the machine's own pyenv): the test says SKIP and why; under CI (CI=true),
# whose machine has everything, it fails instead.
skip_unless_ci() {
    [ "${CI:-}" = true ] && { echo "$1 (CI=true: this machine should have it)" >&2; return 1; }
    skip "$1"
}

gate_run() {
    if [ -n "$STDIOGATE_WRAPPER" ]; then
        "$STDIOGATE_WRAPPER" -- "$@"
        return
    fi
    local me=$BASHPID wire
    wire=$(stat -L -c %d:%i "/proc/$me/fd/1" 2>/dev/null) || wire=
    (
        export LD_PRELOAD="$STDIOGATE_LIB${LD_PRELOAD:+ $LD_PRELOAD}"
        if [ -n "$wire" ]; then export STDIOGATE_WIRE=$wire; fi
        exec "$@"
    )
}

serve() {
    status=0
    RUN_COMMAND="client.py $*"
    "$PYTHON" "$CLIENT" --out "$OUT" --err "$ERR" "$@" || status=$?
    tree_status=$status
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

diverted() {
    local -x STDIOGATE_DEBUG=${STDIOGATE_DEBUG-2}
    both "$@"
    assert_status 0
    assert_junk_on_stderr
    [ -n "${EXPECT_FAILSAFE:-}" ] || assert_no_failsafe
}

init_diverted() {
    diverted --line "$INIT" "$@"
    assert_frames "$(answer 0 initialize)"
}

init_ping_diverted() {
    diverted --line "$INIT" --line "$PING" "$@"
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

answer() { printf '{"jsonrpc":"2.0","id":%s,"result":{"echo":"%s"}}' "$1" "$2"; }

lsp_frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }

show_run() {
    {
        echo "--- command: ${RUN_COMMAND:-?}"
        echo "--- status: ${status:-?}"
        echo "--- stdout ($OUT):"; cat -A "$OUT" 2>/dev/null | head -40
        echo "--- stderr ($ERR):"; head -c 6000 "$ERR" 2>/dev/null | head -80
        echo "---"
    } >&2
}

assert_status() {  # assert_status [N]: $status is N (default 0)
    if [ "$status" != "${1:-0}" ]; then
        echo "expected exit status ${1:-0}, got $status" >&2; show_run; return 1
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

# assert_stderr_bytes TEXT: stderr is exactly TEXT (no diagnostics: level 1)
assert_stderr_bytes() {
    printf '%s' "$1" | cmp -s - "$ERR" ||
        { echo "stderr is not exactly:" >&2; printf '%s' "$1" | od -c | head -20 >&2; show_run; return 1; }
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

INIT_BYTES=${#INIT}
FAILSAFE_WARNING="the server answered before stdiogate saw the client's first message end"

assert_gate_opened_by() {  # assert_gate_opened_by CALL [BYTES|eof]
    local call=$1 n=${2:-} re
    case $n in
        '') re="after [0-9]+ bytes|at end of input" ;;
        eof) re="at end of input" ;;
        *) re="after $n bytes" ;;
    esac
    if ! grep -qE "^stdiogate\[[0-9]+\]: gate opened by $call ($re)\$" "$ERR"; then
        echo "stderr has no level-2 line: gate opened by $call ${n:+($n)}" >&2
        grep -F 'gate opened' "$ERR" | sed 's/^/    found: /' >&2
        show_run; return 1
    fi
}

assert_no_failsafe() {
    if grep -qE '^stdiogate\[[0-9]+\]: gate opened by [^ ]+: the server answered$' "$ERR" ||
       grep -qF -- "$FAILSAFE_WARNING" "$ERR"; then
        echo "the fail-safe opened the gate (the read path should have)" >&2
        show_run; return 1
    fi
}

assert_failsafe() {  # assert_failsafe CALL
    if ! grep -qE "^stdiogate\[[0-9]+\]: gate opened by $1: the server answered\$" "$ERR"; then
        echo "stderr has no level-2 line: gate opened by $1: the server answered" >&2
        grep -F 'gate opened' "$ERR" | sed 's/^/    found: /' >&2
        show_run; return 1
    fi
}

assert_junk_on_stderr() {
    assert_stderr_has "${JUNK[@]}" && assert_stdout_lacks "${JUNK[@]}"
}

assert_nowhere() {
    local t
    for t; do
        ! grep -qF -- "$t" "$OUT" "$ERR" || { echo "must be nowhere, found: $t" >&2; show_run; return 1; }
    done
}

# --- The process-tree runs --------------------------------------------------

tree_setup() {
    OUT="$BATS_TEST_TMPDIR/out"
    ERR="$BATS_TEST_TMPDIR/err"
    EXPECTED="$BATS_TEST_TMPDIR/expected"
    [ -x "$STDIOGATE" ] || { echo "missing $STDIOGATE" >&2; return 1; }
    [ -n "${TREE_STDIOGATE:-}" ] || [ -e "$ROOT/libstdiogate.so" ] \
        || { echo "missing libstdiogate.so (make all)" >&2; return 1; }
    [ -x "$BIN/tree_server" ] || { echo "missing $BIN/tree_server (make fixtures)" >&2; return 1; }
    # npx keeps what it links in its cache: a private one per test, offline.
    export npm_config_cache="$BATS_TEST_TMPDIR/npm-cache"
    export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
    # npx links a local directory into its cache (npm 9.4 and later), so the
    # package's bin finds ../tree_server.js; npm 9.0 to 9.3 (Debian 12's 9.2.0)
    # copied it (install-links=true), and the bin stopped at "Cannot find module".
    export npm_config_install_links=false
    cd "$ROOT" || return 1
}

mcp_session() {  # mcp_session CMD...: the client side of tree_run
    serve --mcp --session --stderr-file --timeout 30 --eof-within 30 \
        "${TREE_CLIENT_OPTS[@]}" -- "$@"
    show_run 2>&1
}

tree_run() { mcp_session "$STDIOGATE" "$@"; }
tree_run_plain() { mcp_session "$@"; }

expect_frames() {
    local name="${1:-tree}"
    printf '%s\n' \
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"$name\",\"version\":\"1.0\"}}}" \
        '{"jsonrpc":"2.0","id":2,"result":{}}' >"$EXPECTED"
}

expect_frames_with() {
    expect_frames "$1"
    shift
    { head -n 1 "$EXPECTED"; printf '%s\n' "$@"; tail -n 1 "$EXPECTED"; } >"$EXPECTED.new"
    mv "$EXPECTED.new" "$EXPECTED"
}

notification() {
    printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%s"}}' "$1"
}

assert_stdout_frames() {
    if ! cmp -s "$EXPECTED" "$OUT"; then
        echo "stdout is not the expected frames, byte for byte:"
        diff <(cat -A "$EXPECTED") <(cat -A "$OUT") || true
        return 1
    fi
    "$PYTHON" - "$OUT" <<'PY' || return 1
import json, sys
for n, line in enumerate(open(sys.argv[1], "rb").read().split(b"\n")[:-1], 1):
    msg = json.loads(line)
    if not isinstance(msg, dict) or "jsonrpc" not in msg:
        sys.exit(f"stdout line {n} has no top-level jsonrpc member: {line!r}")
PY
}

assert_frames_among_stdout() {
    local line
    while IFS= read -r line; do
        grep -qxF -- "$line" "$OUT" || { echo "frame missing from stdout: $line"; return 1; }
    done <"$EXPECTED"
}

tree_check() {
    local name="$1"; shift
    local tags=()
    while [ "$1" != "--" ]; do tags+=("$1"); shift; done
    shift
    expect_frames "$name"
    tree_run_plain "$@"
    assert_status 0
    assert_stdout_has "${tags[@]}"
    assert_frames_among_stdout
    tree_run "$@"
    assert_status 0
    assert_stdout_frames
    assert_stderr_has "${tags[@]}"
}

# tree_in_tmp NAME [FILE...]: the wrapper, stdiogate-check,
# stdiogate-filter, the library and FILE... copied into a new directory
# under /tmp, $dir, that another user (nobody) may reach and run from (the
# test's own directory may be under /root)
tree_in_tmp() {
    local name=$1
    shift
    dir=$(mktemp -d "/tmp/stdiogate-$name.XXXXXX")
    cp "$ROOT/stdiogate" "$ROOT/stdiogate-check" "$ROOT/stdiogate-filter" "$STDIOGATE_LIB" "$@" "$dir/"
    chmod 755 "$dir"
}

# row_table FN ROW...: runs `FN ROW` (the row split into words) for every
# row, each in a background subshell with errexit in force (a subshell on
# the left of || would run with errexit off and pass every row), and names
# every row that failed.
# row_table_modes FN X...: row_table FN over "X MODE", each X in each of the
# three modes (default, strict, gate-only)
row_table_modes() {
    local fn=$1 rows=() x m
    shift
    for x in "$@"; do
        for m in default strict gate-only; do rows+=("$x $m"); done
    done
    row_table "$fn" "${rows[@]}"
}

row_table() {
    local fn=$1 r bad=()
    shift
    for r in "$@"; do
        # shellcheck disable=SC2086
        ( set -e; "$fn" $r ) 2>"$BATS_TEST_TMPDIR/row.err" &
        if ! wait $!; then
            bad+=("$r")
            { echo "=== row failed: $r"; cat "$BATS_TEST_TMPDIR/row.err"; } >&2
        fi
    done
    [ "${#bad[@]}" = 0 ] || { printf 'failed row: %s\n' "${bad[@]}" >&2; false; }
}

# kill_listed FILE: kills every pid FILE lists (one a line), if there is a
# FILE: a teardown's, for what a test left running.
kill_listed() {
    local pid
    [ -f "${1:-}" ] || return 0
    while read -r pid; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done <"$1"
}

# --- Compatibility names (tests/tree_helpers.bash before the merge) ---------
# The lead removes these once no branch uses them.
TREE_ROOT=$ROOT
TBIN=$BIN
TFIX=$FIX
TREE_PYTHON=${TREE_PYTHON:-$PYTHON}
_tree_client() { mcp_session "$@"; }
_tree_show() { show_run 2>&1; }
assert_on_stderr() { assert_stderr_has "$@"; }
assert_on_stdout() { assert_stdout_has "$@"; }
assert_not_on_stdout() { assert_stdout_lacks "$@"; }
