#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A large tool result (BLOB_SIZE characters, several MiB, in one JSON line) arrives intact through
# the gate, over sockets and over pipes, from a Node server (SDK McpServer) and a Python server.
# The fixtures run with --quiet here: the gate still diverts until the first message, and a
# failure points at the large write, not at the noise.

load ../integration/real_helpers

setup() {
  real_setup
  SHA=$(blob_sha256 "$BLOB_SIZE")
  BLOB=(--digest --call blob --args "{\"size\":$BLOB_SIZE}")
}

# intact TAG: the call result is one text item of BLOB_SIZE characters with the expected digest.
intact() {
  expect_eq "$1: large result" "[{\"type\":\"text\",\"length\":$BLOB_SIZE,\"sha256\":\"$SHA\"}]" \
    "$(q "$1" '.call.content')" || { show "$1"; return 1; }
}

# large_raw TAG TRANSPORT SERVER...: unwrapped and wrapped, intact, one line of that size.
large_raw() {
  local tag=$1 transport=$2
  shift 2
  raw "$tag-plain" --transport "$transport" "${BLOB[@]}" -- "$@" || { show "$tag-plain"; return 1; }
  raw "$tag-gated" --transport "$transport" "${BLOB[@]}" -- "$GATE" "$@" || { show "$tag-gated"; return 1; }
  clean_raw "$tag-plain"
  intact "$tag-plain"
  clean_raw "$tag-gated"
  intact "$tag-gated"
  expect_eq "$tag-gated: lines on stdout" 3 "$(q "$tag-gated" '.lines')" || { show "$tag-gated"; return 1; }
  [ "$(q "$tag-gated" '.max_line_bytes')" -gt "$BLOB_SIZE" ]
  same_result "$tag-plain" "$tag-gated"
}

@test "large result: Node server, raw client over sockets, wrapped: intact" {
  large_raw node-sock socket "$NODE" "$FIX/noisy-server.cjs" --quiet
}

@test "large result: Node server, raw client over pipes, wrapped: intact" {
  large_raw node-pipe pipe "$NODE" "$FIX/noisy-server.cjs" --quiet
}

@test "large result: Python server, raw client over sockets, wrapped: intact" {
  large_raw py-sock socket "$PY" "$FIX/noisy_server.py" --quiet
}

@test "large result: Python server, raw client over pipes, wrapped: intact" {
  large_raw py-pipe pipe "$PY" "$FIX/noisy_server.py" --quiet
}

@test "large result: Node and Python servers, SDK client, wrapped: intact, no transport error" {
  sdk node-sdk "${BLOB[@]}" -- "$GATE" "$NODE" "$FIX/noisy-server.cjs" --quiet || { show node-sdk; false; }
  clean_sdk node-sdk
  intact node-sdk
  sdk py-sdk "${BLOB[@]}" -- "$GATE" "$PY" "$FIX/noisy_server.py" --quiet || { show py-sdk; false; }
  clean_sdk py-sdk
  intact py-sdk
}

@test "large result: noisy Node and Python servers, raw client over pipes, wrapped: intact, no junk" {
  raw node-noisy --transport pipe "${BLOB[@]}" -- "$GATE" "$NODE" "$FIX/noisy-server.cjs" || { show node-noisy; false; }
  clean_raw node-noisy
  intact node-noisy
  raw py-noisy --transport pipe "${BLOB[@]}" -- "$GATE" "$PY" "$FIX/noisy_server.py" || { show py-noisy; false; }
  clean_raw py-noisy
  intact py-noisy
}
