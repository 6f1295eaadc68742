#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The gate opens at the end of the client's first complete message, whatever it is: a client that
# sends `ping` before initialize, or `server/discover` first (MCP 2026-07-28, SEP-2575), gets that
# answer on stdout (a result or an error response: what matters is that a JSON-RPC response with
# that id arrives on the wire), then initializes as usual. Raw client, sockets and pipes, against
# server-everything and both noisy fixtures.

load ../integration/real_helpers

setup() {
  real_setup
}

# first_answered TAG TRANSPORT KIND SERVER...: KIND is ping or discover.
first_answered() {
  local tag=$1 transport=$2 kind=$3
  shift 3
  local id="first-$kind"
  raw "$tag" --transport "$transport" --first "$kind" --call echo --args '{"message":"after the first"}' \
    -- "$GATE" "$@" || { show "$tag"; return 1; }
  clean_raw "$tag"
  expect_eq "$tag: id of the first response on stdout" "\"$id\"" "$(q "$tag" '.first.id')" || { show "$tag"; return 1; }
  expect_eq "$tag: the first response is a result or an error" true \
    "$(q "$tag" '.first | (has("result") or has("error")) and .jsonrpc == "2.0"')" || { show "$tag"; return 1; }
  if [ "$kind" = ping ]; then
    expect_eq "$tag: ping result" '{}' "$(q "$tag" '.first.result')" || { show "$tag"; return 1; }
  fi
}

# Unwrapped and wrapped agree on the first answer too (same_result compares .first).
everything_first() {
  local tag="everything-$1-$2"
  raw "$tag-plain" --transport "$1" --first "$2" --call echo --args '{"message":"after the first"}' \
    -- "$BIN/mcp-server-everything" || { show "$tag-plain"; return 1; }
  clean_raw "$tag-plain"
  first_answered "$tag-gated" "$1" "$2" "$BIN/mcp-server-everything"
  same_result "$tag-plain" "$tag-gated"
}

@test "first message ping: server-everything answers on stdout, wrapped, sockets" {
  everything_first socket ping
}

@test "first message ping: server-everything answers on stdout, wrapped, pipes" {
  everything_first pipe ping
}

@test "first message server/discover: server-everything answers on stdout, wrapped, sockets" {
  everything_first socket discover
}

@test "first message server/discover: server-everything answers on stdout, wrapped, pipes" {
  everything_first pipe discover
}

@test "first message ping: noisy Node and Python answer on stdout, no junk, wrapped (sockets, pipes)" {
  first_answered node-ping-sock socket ping "$NODE" "$FIX/noisy-server.cjs"
  first_answered node-ping-pipe pipe ping "$NODE" "$FIX/noisy-server.cjs"
  first_answered py-ping-sock socket ping "$PY" "$FIX/noisy_server.py"
  first_answered py-ping-pipe pipe ping "$PY" "$FIX/noisy_server.py"
}

@test "first message server/discover: noisy Node and Python answer on stdout, no junk, wrapped" {
  first_answered node-disc-sock socket discover "$NODE" "$FIX/noisy-server.cjs"
  first_answered node-disc-pipe pipe discover "$NODE" "$FIX/noisy-server.cjs"
  first_answered py-disc-sock socket discover "$PY" "$FIX/noisy_server.py"
  first_answered py-disc-pipe pipe discover "$PY" "$FIX/noisy_server.py"
}
