#!/usr/bin/env bats
# Do no harm, on servers written against each official MCP SDK, through their real launchers:
# Python (mcp 2.3.0, MCPServer, the SDK's "v2" stdio transport) under `uvx --from`, `uv run` and
# `python -m`; Go (go-sdk) static and with cgo; Rust (rmcp); Java (io.modelcontextprotocol.sdk).
# Each prints a banner on stdout before its first message (Python also a dependency's notice at
# import: pygame's) and a line during its tool call. Sources: tests/sdk/; built by tests/sdk.mk.
#
# Clients: the TypeScript SDK client (sockets), the Python SDK client (pipes), the strict raw
# client (sockets, pipes). Each test runs the server unwrapped, under stdiogate and under
# stdiogate --strict:
#  - unwrapped, the junk is on stdout (the raw client lists it, the SDK clients report one error a
#    line): the test can fail;
#  - wrapped, stdout carries only JSON-RPC frames, but for what the default mode lets through by
#    design (it guards stdout until the first message, so the line printed during the call is the
#    server's; a Go program is not guarded at all and the wrapper says so), and the junk is on
#    the server's stderr;
#  - under --strict, stdout carries only JSON-RPC frames, every junk line is on stderr;
#  - the session's result (server info, capabilities, tools, the call) is the same each time;
#  - no process of any run is left behind.

load integration/real_helpers
load sdk/sdk_helpers

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
