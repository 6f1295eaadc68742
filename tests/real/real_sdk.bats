#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Do no harm, on servers written against each official MCP SDK, through their real launchers:
# Python (mcp 2.3.0, MCPServer, the SDK's "v2" stdio transport) under `uvx --from`, `uv run` and
# `python -m`; Go (go-sdk) static and with cgo; Rust (rmcp); Java (io.modelcontextprotocol.sdk).
# Each prints a banner on stdout before its first message (Python also a dependency's notice at
# import: pygame's) and a line during its tool call. Sources: tests/sdk/; built by tests/sdk.mk.
#
# Clients: the TypeScript SDK client (sockets), the Python SDK client (pipes), the strict raw
# client (sockets, pipes). Each test runs the server unwrapped, under stdiogate, under
# stdiogate --gate-only (where a line reaches stdout while serving) and under stdiogate --strict:
#  - unwrapped, the junk is on stdout (the raw client lists it, the SDK clients report one error a
#    line): the test can fail;
#  - wrapped (the library's session guard; a Go program runs under the filter by itself, issue
#    24) and under --strict, stdout carries only JSON-RPC frames, every junk line is on stderr;
#  - under --gate-only, stdout is guarded until the first message only: the line printed during
#    the call is the server's (on stdout), the startup junk on stderr;
#  - the session's result (server info, capabilities, tools, the call) is the same each time;
#  - no process of any run is left behind.

load ../integration/real_helpers
load ../sdk/sdk_helpers

setup() {
  sdk_setup
}

@test "sdk: Python, uvx --from, TS SDK client (sockets): unwrapped, wrapped, --strict" {
  sdk_case sdk py-uvx
}

@test "sdk: Python, uvx --from, Python SDK client (pipes): unwrapped, wrapped, --strict" {
  sdk_case py py-uvx
}

@test "sdk: Python, uvx --from, raw client (sockets): unwrapped, wrapped, --strict" {
  sdk_case raw-socket py-uvx
}

@test "sdk: Python, uvx --from, raw client (pipes): unwrapped, wrapped, --strict" {
  sdk_case raw-pipe py-uvx
}

@test "sdk: Python, uv run, TS SDK client (sockets): unwrapped, wrapped, --strict" {
  sdk_case sdk py-uvrun
}

@test "sdk: Python, uv run, Python SDK client (pipes): unwrapped, wrapped, --strict" {
  sdk_case py py-uvrun
}

@test "sdk: Python, uv run, raw client (sockets): unwrapped, wrapped, --strict" {
  sdk_case raw-socket py-uvrun
}

@test "sdk: Python, uv run, raw client (pipes): unwrapped, wrapped, --strict" {
  sdk_case raw-pipe py-uvrun
}

@test "sdk: Python, python -m, TS SDK client (sockets): unwrapped, wrapped, --strict" {
  sdk_case sdk py-m
}

@test "sdk: Python, python -m, Python SDK client (pipes): unwrapped, wrapped, --strict" {
  sdk_case py py-m
}

@test "sdk: Python, python -m, raw client (sockets): unwrapped, wrapped, --strict" {
  sdk_case raw-socket py-m
}

@test "sdk: Python, python -m, raw client (pipes): unwrapped, wrapped, --strict" {
  sdk_case raw-pipe py-m
}

@test "sdk: Go, static, TS SDK client (sockets): unwrapped, wrapped, --strict" {
  sdk_case sdk go-static
}

@test "sdk: Go, static, Python SDK client (pipes): unwrapped, wrapped, --strict" {
  sdk_case py go-static
}

@test "sdk: Go, static, raw client (sockets): unwrapped, wrapped, --strict" {
  sdk_case raw-socket go-static
}

@test "sdk: Go, static, raw client (pipes): unwrapped, wrapped, --strict" {
  sdk_case raw-pipe go-static
}

@test "sdk: Go, cgo, TS SDK client (sockets): unwrapped, wrapped, --strict" {
  sdk_case sdk go-cgo
}

@test "sdk: Go, cgo, Python SDK client (pipes): unwrapped, wrapped, --strict" {
  sdk_case py go-cgo
}

@test "sdk: Go, cgo, raw client (sockets): unwrapped, wrapped, --strict" {
  sdk_case raw-socket go-cgo
}

@test "sdk: Go, cgo, raw client (pipes): unwrapped, wrapped, --strict" {
  sdk_case raw-pipe go-cgo
}

@test "sdk: Rust rmcp, TS SDK client (sockets): unwrapped, wrapped, --strict" {
  sdk_case sdk rust
}

@test "sdk: Rust rmcp, Python SDK client (pipes): unwrapped, wrapped, --strict" {
  sdk_case py rust
}

@test "sdk: Rust rmcp, raw client (sockets): unwrapped, wrapped, --strict" {
  sdk_case raw-socket rust
}

@test "sdk: Rust rmcp, raw client (pipes): unwrapped, wrapped, --strict" {
  sdk_case raw-pipe rust
}

@test "sdk: Java, TS SDK client (sockets): unwrapped, wrapped, --strict" {
  sdk_case sdk java
}

@test "sdk: Java, Python SDK client (pipes): unwrapped, wrapped, --strict" {
  sdk_case py java
}

@test "sdk: Java, raw client (sockets): unwrapped, wrapped, --strict" {
  sdk_case raw-socket java
}

@test "sdk: Java, raw client (pipes): unwrapped, wrapped, --strict" {
  sdk_case raw-pipe java
}

# rmcp's stdio_pipes() (the transport its documentation recommends when stdin and stdout are
# pipes) reopens /proc/self/fd/0 and /proc/self/fd/1 and serves on the new descriptors when both
# are FIFOs. Wrapped, fd 1 is the diversion at that moment; with the server's stderr a pipe too
# (a Python host with stderr=PIPE, a supervisor that collects logs) the reopened fd 1 was the
# stderr pipe, every answer went to stderr and the client waited forever (bounded here by the
# client's timeout), in the default mode and under --strict. With stderr a file rmcp falls back
# to stdio() (the reopened diversion is no FIFO): the cases above. The library now opens the
# wire for such a name and swaps it in when the gate opens (lib/reopen.c, "Opening stdout by name").

# piped_stderr_run NAME PREFIX...: the raw client over pipes on `noisy-rmcp --pipes`, the server's
# stderr a pipe read into NAME.err. CLIENT=py: the Python SDK client instead (a Python host).
# MESSAGE: the echo tool's argument (default "through the gate").
piped_stderr_run() {
  local name=$1 status=0 client=("$PY" "$INTEG/raw_client.py" --transport pipe)
  local fifo=$BATS_TEST_TMPDIR/$name-stderr-pipe
  shift
  [ "${CLIENT:-}" = py ] && client=("$SDK_VENV_PY" "$TESTS/sdk/py_client.py")
  mkfifo "$fifo"
  cat "$fifo" >"$BATS_TEST_TMPDIR/$name.err" &
  "${client[@]}" --timeout 20 --stderr "$fifo" --call echo \
    --args "{\"message\":\"${MESSAGE:-through the gate}\"}" \
    -- "$@" "$SDK_OUT/bin/noisy-rmcp" --pipes >"$BATS_TEST_TMPDIR/$name.json" || status=$?
  wait
  [ "$status" = 0 ] || { show "$name"; return 1; }
}

# piped_stderr_case: unwrapped (the banner on stdout), wrapped and --strict (the banner on the
# server's stderr), the same result each time.
piped_stderr_case() {
  piped_stderr_run plain
  completed plain
  if grep -qF "noisy-rmcp: starting" "$BATS_TEST_TMPDIR/plain.err"; then
    echo "unwrapped: the banner is not on stdout: the test could not fail"; return 1
  fi
  piped_stderr_run gated "$GATE"
  completed gated
  same_result plain gated
  grep -qF "noisy-rmcp: starting" "$BATS_TEST_TMPDIR/gated.err"
  [ "${CLIENT:-}" = py ] && return 0
  piped_stderr_run strict "$GATE" --strict
  completed strict
  same_result plain strict
  grep -qF "noisy-rmcp: starting" "$BATS_TEST_TMPDIR/strict.err"
}

@test "sdk: Rust rmcp stdio_pipes(), raw client (pipes), stderr a pipe: unwrapped, wrapped, --strict" {
  piped_stderr_case
}

@test "sdk: Rust rmcp stdio_pipes(), Python SDK client (pipes), stderr a pipe: unwrapped, wrapped" {
  CLIENT=py piped_stderr_case
}

@test "sdk: Rust rmcp stdio_pipes(), an answer larger than a pipe (tokio's epoll registration): unwrapped, wrapped, --strict" {
  MESSAGE=$(head -c 100000 /dev/zero | tr '\0' m)
  piped_stderr_case
  [ "$(q gated '.call | tostring | length')" -gt 100000 ]
}
