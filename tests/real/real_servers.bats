#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Do no harm: real MCP servers (server-everything, server-filesystem, server-memory, pinned in
# tests/package-lock.json) give the same result wrapped as unwrapped, to the official SDK client
# (sockets) and to the strict raw client (sockets and pipes), with no junk line and no transport
# error on either side. And two that print while they serve (mcp-server-code-runner, pinned too;
# mcp-python-interpreter from PyPI, pinned with hashes in tests/real/requirements.txt, built by
# tests/real.mk): junk unwrapped, none wrapped, the same result.

load ../integration/real_helpers

setup() {
  real_setup
}

# both_ways CLIENT TAG [client options] -- SERVER...: the run unwrapped (TAG-plain) and wrapped
# (TAG-gated), both clean, same result.
both_ways() {
  local client=$1 tag=$2
  shift 2
  local opts=() ; while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  "$client" "$tag-plain" "${opts[@]}" -- "$@" || { show "$tag-plain"; return 1; }
  "$client" "$tag-gated" "${opts[@]}" -- "$GATE" "$@" || { show "$tag-gated"; return 1; }
  "clean_$client" "$tag-plain"
  "clean_$client" "$tag-gated"
  same_result "$tag-plain" "$tag-gated"
}

everything() {
  both_ways "$1" "everything-$1${2:+-$2}" ${2:+--transport $2} \
    --call echo --args '{"message":"through the gate"}' -- "$BIN/mcp-server-everything"
}

filesystem() {
  local dir="$BATS_TEST_TMPDIR/files"
  mkdir -p "$dir/sub" && echo 'hello from a file' >"$dir/a.txt"
  both_ways "$1" "filesystem-$1${2:+-$2}" ${2:+--transport $2} \
    --call list_directory --args "{\"path\":\"$dir\"}" -- "$BIN/mcp-server-filesystem" "$dir"
  # The call really listed the directory (readdir order: compare sorted).
  expect_eq "directory listing" '["[DIR] sub","[FILE] a.txt"]' \
    "$(q "filesystem-$1${2:+-$2}-gated" '.call.content[0].text | split("\n") | sort')"
}

memory() {
  local tag="memory-$1${2:+-$2}"
  local args='{"entities":[{"name":"stdiogate","entityType":"project","observations":["keeps stdout clean"]}]}'
  "$1" "$tag-plain" ${2:+--transport $2} --env "MEMORY_FILE_PATH=$BATS_TEST_TMPDIR/plain.jsonl" \
    --call create_entities --args "$args" -- "$BIN/mcp-server-memory" || { show "$tag-plain"; return 1; }
  "$1" "$tag-gated" ${2:+--transport $2} --env "MEMORY_FILE_PATH=$BATS_TEST_TMPDIR/gated.jsonl" \
    --call create_entities --args "$args" -- "$GATE" "$BIN/mcp-server-memory" || { show "$tag-gated"; return 1; }
  "clean_$1" "$tag-plain"
  "clean_$1" "$tag-gated"
  same_result "$tag-plain" "$tag-gated"
  # The server stored the entity in the file it was given, wrapped too.
  grep -q '"name":"stdiogate"' "$BATS_TEST_TMPDIR/gated.jsonl"
}

@test "real: server-everything, SDK client (sockets): same result wrapped, no transport error" {
  everything sdk
  # The server's own stderr line is still on stderr.
  stderr_has everything-sdk-gated 'Starting default (STDIO) server...'
}

@test "real: server-everything, raw client over sockets: same result wrapped, no junk line" {
  everything raw socket
}

@test "real: server-everything, raw client over pipes: same result wrapped, no junk line" {
  everything raw pipe
}

@test "real: server-filesystem on a temp dir, SDK client: same result wrapped, no transport error" {
  filesystem sdk
}

@test "real: server-filesystem on a temp dir, raw client over sockets: same result wrapped, no junk" {
  filesystem raw socket
}

@test "real: server-filesystem on a temp dir, raw client over pipes: same result wrapped, no junk" {
  filesystem raw pipe
}

@test "real: server-memory, SDK client: same result wrapped, no transport error" {
  memory sdk
}

@test "real: server-memory, raw client over sockets: same result wrapped, no junk line" {
  memory raw socket
}

@test "real: server-memory, raw client over pipes: same result wrapped, no junk line" {
  memory raw pipe
}

# mcp-server-code-runner (npm, pinned): it console.logs on stdout at start and on every tool call
# (issue 34). Unwrapped those lines are junk on stdout (the test can fail); in the default mode
# the session guard keeps them all off, the result is the same and the lines are on stderr;
# with --gate-only the ones printed during the call reach the client, as before the guard.
code_runner() {
  local tag="code-runner-$1" args='{"code":"console.log(6*7)","languageId":"javascript"}'
  local start="Code Runner MCP Server running on stdio"
  raw "$tag-plain" --transport "$1" --call run-code --args "$args" -- "$BIN/mcp-server-code-runner" ||
    { show "$tag-plain"; return 1; }
  expect_eq "unwrapped junk lines" 3 "$(q "$tag-plain" '.junk_count')" || { show "$tag-plain"; return 1; }
  expect_eq "unwrapped first junk line" "\"$start\"" "$(q "$tag-plain" '.junk[0]')" || { show "$tag-plain"; return 1; }
  raw "$tag-gated" --transport "$1" --call run-code --args "$args" -- "$GATE" "$BIN/mcp-server-code-runner" ||
    { show "$tag-gated"; return 1; }
  clean_raw "$tag-gated" || { show "$tag-gated"; return 1; }
  same_result "$tag-plain" "$tag-gated"
  expect_eq "the call's result" '"42\n"' "$(q "$tag-gated" '.call.content[0].text')"
  grep -qxF "$start" "$BATS_TEST_TMPDIR/$tag-gated.err" &&
    grep -q '^Executing command: node ' "$BATS_TEST_TMPDIR/$tag-gated.err" || { show "$tag-gated"; return 1; }
  raw "$tag-gate-only" --transport "$1" --call run-code --args "$args" -- "$GATE" --gate-only \
    "$BIN/mcp-server-code-runner" || { show "$tag-gate-only"; return 1; }
  expect_eq "--gate-only junk lines (the call's two)" 2 "$(q "$tag-gate-only" '.junk_count')" ||
    { show "$tag-gate-only"; return 1; }
}

@test "real: mcp-server-code-runner prints while serving: kept off by the default mode (sockets)" {
  code_runner socket
}

@test "real: mcp-server-code-runner prints while serving: kept off by the default mode (pipes)" {
  code_runner pipe
}

# mcp-python-interpreter 1.2.3 (PyPI; make real-python): its tool run_python_code runs the code in
# the server's own process, so a program that code starts writes on the server's stdout, the wire:
# here os.system's /bin/sh, which echoes a line. Unwrapped that line is the one junk line on stdout
# (the test can fail); in the default mode the session guard sends it to stderr and the result is
# the same; with --gate-only it reaches the client again (the child writes after the first message).
PYI="$ROOT/build/real/py/venv/bin/mcp-python-interpreter"
python_interpreter() {
  local tag="python-interpreter-$1" dir="$BATS_TEST_TMPDIR/work" line="from a child of the tool"
  local args="{\"code\":\"__import__('os').system('echo $line')\"}"
  # What the tool answers: system()'s value, 0 (the shell succeeded), as the code's output.
  local result='"Execution in session '\''default'\'' (inline mode):\n\n--- Output ---\n0\n"'
  [ -x "$PYI" ] || { echo "$PYI is missing: run 'make real-python' (or 'make test')"; return 1; }
  mkdir -p "$dir"
  raw "$tag-plain" --transport "$1" --call run_python_code --args "$args" -- "$PYI" --dir "$dir" ||
    { show "$tag-plain"; return 1; }
  expect_eq "unwrapped junk lines" 1 "$(q "$tag-plain" '.junk_count')" || { show "$tag-plain"; return 1; }
  expect_eq "unwrapped junk line" "\"$line\"" "$(q "$tag-plain" '.junk[0]')" || { show "$tag-plain"; return 1; }
  expect_eq "the call's result, unwrapped" "$result" "$(q "$tag-plain" '.call.content[0].text')" ||
    { show "$tag-plain"; return 1; }
  raw "$tag-gated" --transport "$1" --call run_python_code --args "$args" -- "$GATE" "$PYI" --dir "$dir" ||
    { show "$tag-gated"; return 1; }
  clean_raw "$tag-gated"
  same_result "$tag-plain" "$tag-gated"
  grep -qxF "$line" "$BATS_TEST_TMPDIR/$tag-gated.err" || { show "$tag-gated"; return 1; }
  raw "$tag-gate-only" --transport "$1" --call run_python_code --args "$args" -- "$GATE" --gate-only \
    "$PYI" --dir "$dir" || { show "$tag-gate-only"; return 1; }
  expect_eq "--gate-only junk lines" 1 "$(q "$tag-gate-only" '.junk_count')" || { show "$tag-gate-only"; return 1; }
  expect_eq "--gate-only junk line" "\"$line\"" "$(q "$tag-gate-only" '.junk[0]')" ||
    { show "$tag-gate-only"; return 1; }
}

@test "real: mcp-python-interpreter, a child of the tool's code prints: kept off by the default mode (sockets)" {
  python_interpreter socket
}

@test "real: mcp-python-interpreter, a child of the tool's code prints: kept off by the default mode (pipes)" {
  python_interpreter pipe
}
