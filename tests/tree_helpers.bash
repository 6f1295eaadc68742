# SPDX-License-Identifier: MIT
# tree_helpers.bash: helpers for the process-tree tests (tests/tree_*.bats).
#
#   tree_run CMD...        run CMD under ./stdiogate as a client would (see
#                          fixtures/tree_client.py): stdout bytes in $OUT,
#                          stderr in $ERR, exit status in $tree_status.
#   tree_run_plain CMD...  the same without stdiogate (the unwrapped baseline).
#   expect_frames [NAME]   the bytes a correct run puts on stdout: the answers
#                          to initialize (serverInfo.name NAME, default "tree")
#                          and to ping, written to $EXPECTED.
#   assert_stdout_frames   $OUT is byte for byte $EXPECTED, and every line of
#                          it is a JSON object with a top-level "jsonrpc".
#   assert_on_stderr TAG...      each TAG occurs in $ERR
#   assert_not_on_stdout TAG...  no TAG occurs in $OUT
#   assert_on_stdout TAG...      each TAG occurs in $OUT (for unwrapped runs)
#   assert_nowhere TAG...        no TAG occurs in $OUT nor in $ERR

TREE_ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
STDIOGATE="${TREE_STDIOGATE:-$TREE_ROOT/stdiogate}"   # override: only to try the fixtures
TBIN="$TREE_ROOT/tests/bin"
TFIX="$TREE_ROOT/tests/fixtures"
# The client and the checks run on a plain interpreter: python3 on PATH may be
# a pyenv shim, which costs a bash script and several processes per call.
if [ -z "${TREE_PYTHON:-}" ]; then
    if [ -x /usr/bin/python3 ]; then TREE_PYTHON=/usr/bin/python3; else TREE_PYTHON=$(command -v python3); fi
fi

tree_setup() {
    OUT="$BATS_TEST_TMPDIR/out"
    ERR="$BATS_TEST_TMPDIR/err"
    EXPECTED="$BATS_TEST_TMPDIR/expected"
    [ -x "$STDIOGATE" ] || { echo "missing $STDIOGATE" >&2; return 1; }
    [ -n "${TREE_STDIOGATE:-}" ] || [ -e "$TREE_ROOT/libstdiogate.so" ] \
        || { echo "missing libstdiogate.so (make all)" >&2; return 1; }
    [ -x "$TBIN/tree_server" ] || { echo "missing $TBIN/tree_server (make fixtures)" >&2; return 1; }
    cd "$TREE_ROOT" || return 1
}

_tree_client() {
    tree_status=0
    "$TREE_PYTHON" "$TFIX/tree_client.py" "$OUT" "$ERR" "${TREE_CLIENT_OPTS[@]}" -- "$@" \
        || tree_status=$?
    _tree_show "$@"
}

_tree_show() {
    # What a failing test prints: the command, its stdout and its stderr.
    echo "# command: $*"
    echo "# status: $tree_status"
    echo "# ---- stdout ----"
    cat -A "$OUT" 2>/dev/null | head -40
    echo "# ---- stderr ----"
    head -c 6000 "$ERR" 2>/dev/null
    echo "# ----------------"
}

tree_run() { _tree_client "$STDIOGATE" "$@"; }
tree_run_plain() { _tree_client "$@"; }

expect_frames() {
    local name="${1:-tree}"
    printf '%s\n' \
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"$name\",\"version\":\"1.0\"}}}" \
        '{"jsonrpc":"2.0","id":2,"result":{}}' >"$EXPECTED"
}

# expect_frames_with NAME LINE...: the initialize answer, the LINEs, then the
# ping answer (frames a server writes right after the initialize answer).
expect_frames_with() {
    expect_frames "$1"
    shift
    { head -n 1 "$EXPECTED"; printf '%s\n' "$@"; tail -n 1 "$EXPECTED"; } >"$EXPECTED.new"
    mv "$EXPECTED.new" "$EXPECTED"
}

notification() {  # the notifications/message frame the fixtures send
    printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%s"}}' "$1"
}

assert_stdout_frames() {
    if ! cmp -s "$EXPECTED" "$OUT"; then
        echo "stdout is not the expected frames, byte for byte:"
        diff <(cat -A "$EXPECTED") <(cat -A "$OUT") || true
        return 1
    fi
    "$TREE_PYTHON" - "$OUT" <<'PY' || return 1
import json, sys
for n, line in enumerate(open(sys.argv[1], "rb").read().split(b"\n")[:-1], 1):
    msg = json.loads(line)
    if not isinstance(msg, dict) or "jsonrpc" not in msg:
        sys.exit(f"stdout line {n} has no top-level jsonrpc member: {line!r}")
PY
}

assert_frames_among_stdout() {
    # An unwrapped run: the expected frames are there, among the junk.
    local line
    while IFS= read -r line; do
        grep -qxF -- "$line" "$OUT" || { echo "frame missing from stdout: $line"; return 1; }
    done <"$EXPECTED"
}

assert_on_stderr() {
    local t
    for t; do
        grep -qF -- "$t" "$ERR" || { echo "expected on stderr, missing: $t"; return 1; }
    done
}

assert_not_on_stdout() {
    local t
    for t; do
        ! grep -qF -- "$t" "$OUT" || { echo "must not be on stdout, found: $t"; return 1; }
    done
}

assert_on_stdout() {
    local t
    for t; do
        grep -qF -- "$t" "$OUT" || { echo "expected on stdout, missing: $t"; return 1; }
    done
}

assert_nowhere() {
    local t
    for t; do
        ! grep -qF -- "$t" "$OUT" "$ERR" || { echo "must be nowhere, found: $t"; return 1; }
    done
}

assert_status() {
    [ "$tree_status" -eq "${1:-0}" ] || { echo "exit status $tree_status, expected ${1:-0}"; return 1; }
}

# tree_check_wrapped_and_plain NAME TAGS -- CMD...
#   The usual pair: unwrapped, CMD must put every TAG on stdout (so the test
#   can fail); wrapped, stdout must be exactly the frames and every TAG on
#   stderr.
tree_check() {
    local name="$1"; shift
    local tags=()
    while [ "$1" != "--" ]; do tags+=("$1"); shift; done
    shift
    expect_frames "$name"
    tree_run_plain "$@"
    assert_status 0
    assert_on_stdout "${tags[@]}"
    assert_frames_among_stdout
    tree_run "$@"
    assert_status 0
    assert_stdout_frames
    assert_on_stderr "${tags[@]}"
}
