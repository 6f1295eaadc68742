# SPDX-License-Identifier: MIT
# Helpers for tests/real/real_*.bats: real MCP clients (the official TypeScript SDK, a strict raw client)
# against real servers (tests/node_modules) and noisy fixtures (tests/integration/fixtures).
#
# Every client run writes RUN.json (the client's summary) and RUN.err (the server's stderr) under
# $BATS_TEST_TMPDIR; a failing assertion prints both.

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
TESTS="$ROOT/tests"
INTEG="$TESTS/integration"
FIX="$INTEG/fixtures"
NM="$TESTS/node_modules"
BIN="$NM/.bin"
# REAL_GATE: another wrapper to test instead (a mutant, a pass-through to check that tests fail).
GATE="${REAL_GATE:-$ROOT/stdiogate}"
NODE="$(command -v node)"
# The real interpreter, not a version-manager shim (launchers are tested on their own).
PY="$(python3 -c 'import sys; print(sys.executable)')"
# Bounds a request that never gets an answer (a swallowed response): the test fails, not hangs.
REQ_TIMEOUT=15
# The large result: several MiB in one JSON line (the SDK client's buffer limit is 10 MiB).
BLOB_SIZE=4194304

real_setup() {
  [ -x "$BIN/mcp-server-everything" ] || {
    echo "tests/node_modules is missing: run 'make npm-deps' (or 'make test')" >&2
    return 1
  }
  [ -x "$GATE" ] && [ -f "$ROOT/libstdiogate.so" ] || {
    echo "stdiogate or libstdiogate.so is missing: run 'make'" >&2
    return 1
  }
  # Nothing may reach a registry: npx must resolve from the local install.
  export npm_config_offline=true npm_config_update_notifier=false npm_config_fund=false \
    npm_config_audit=false
  cd "$BATS_TEST_TMPDIR" || return 1
}

# sdk NAME [client options] -- COMMAND...: run the SDK client (sockets, SDK default environment).
# Exit status is the client's.
sdk() {
  local name=$1
  shift
  "$NODE" "$INTEG/sdk-client.mjs" --timeout $((REQ_TIMEOUT * 1000)) \
    --stderr "$BATS_TEST_TMPDIR/$name.err" "$@" >"$BATS_TEST_TMPDIR/$name.json"
}

# raw NAME [client options] -- COMMAND...: run the strict raw client.
raw() {
  local name=$1
  shift
  "$PY" "$INTEG/raw_client.py" --timeout "$REQ_TIMEOUT" \
    --stderr "$BATS_TEST_TMPDIR/$name.err" "$@" >"$BATS_TEST_TMPDIR/$name.json"
}

# show NAME...: print runs (summary and server stderr) for a failure report.
show() {
  local n
  for n in "$@"; do
    echo "--- $n.json"
    cut -c1-3000 "$BATS_TEST_TMPDIR/$n.json" 2>/dev/null
    echo "--- $n.err (server stderr)"
    tail -c 3000 "$BATS_TEST_TMPDIR/$n.err" 2>/dev/null
  done
}

# q NAME FILTER: jq on a run's summary (compact output).
q() {
  jq -c "$2" "$BATS_TEST_TMPDIR/$1.json"
}

# The part of a summary that must not change when the server is wrapped.
RESULT='{server, protocolVersion, capabilities, instructions, tools, call, first}'

# same_result A B: A and B agree on server info, protocol, capabilities, tools and the call.
same_result() {
  local a b
  a=$(jq -S "$RESULT" "$BATS_TEST_TMPDIR/$1.json") || { show "$1"; return 1; }
  b=$(jq -S "$RESULT" "$BATS_TEST_TMPDIR/$2.json") || { show "$2"; return 1; }
  if [ "$a" != "$b" ]; then
    echo "results differ: $1 (expected) vs $2 (got)"
    diff <(echo "$a") <(echo "$b") | head -40
    show "$1" "$2"
    return 1
  fi
}

# summary_is NAME FILTER WANT WHY: q NAME FILTER is WANT, or WHY is said
# (after "NAME: ") with the run shown.
summary_is() {
  if [ "$(q "$1" "$2")" != "$3" ]; then
    echo "$1: $4"
    show "$1"
    return 1
  fi
}

# completed NAME: every request got its response and the call returned something.
completed() {
  summary_is "$1" 'has("failure") or .call == null' false "session did not complete: $(q "$1" '.failure')"
}

# clean_sdk NAME: an SDK run that completed with no transport error.
clean_sdk() {
  completed "$1" || return 1
  summary_is "$1" '.errors | length' 0 "expected no transport errors, got: $(q "$1" '.errors')"
}

# clean_raw NAME: a raw run that completed, every stdout line JSON-RPC, the server exited by itself.
clean_raw() {
  completed "$1" || return 1
  summary_is "$1" '.junk_count' 0 \
    "expected no junk lines on stdout, got $(q "$1" '.junk_count'): $(q "$1" '.junk')" || return 1
  summary_is "$1" '.killed' false "the server did not exit after end of input (killed)"
}

# stderr_has NAME TEXT: the server's stderr of run NAME contains TEXT (a diverted line).
stderr_has() {
  grep -qF -- "$2" "$BATS_TEST_TMPDIR/$1.err" || {
    echo "$1: expected on the server's stderr: $2"
    show "$1"
    return 1
  }
}

# expect_eq WHAT EXPECTED GOT
expect_eq() {
  [ "$2" = "$3" ] || {
    echo "$1: expected $2, got $3"
    return 1
  }
}

# blob_sha256 SIZE: digest of the fixtures' filler (character i is ALPHABET[i % 36]).
blob_sha256() {
  "$PY" -c 'import hashlib, sys
a = "abcdefghijklmnopqrstuvwxyz0123456789"; n = int(sys.argv[1])
print(hashlib.sha256((a * (n // len(a) + 1))[:n].encode()).hexdigest())' "$1"
}
