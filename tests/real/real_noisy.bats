#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Keeps junk off: noisy fixtures show junk lines (raw client) or transport errors (SDK client)
# unwrapped, and none wrapped, with the same result. Both sides are asserted, so these tests fail
# if a fixture stops being noisy. Wrapped, the noise must land on the server's stderr.
#
# noisy-server.cjs: console.log banner + dotenv 17 config() ("◇ injected env (1) from .env // tip: ..."),
#   then a real McpServer on the SDK's StdioServerTransport.
# noisy_server.py: prints at import (buffered: wrapped, the guard takes it off after the gate), a child
#   process (echo) writes on the inherited stdout, then JSON-RPC lines by hand.

load ../integration/real_helpers

setup() {
  real_setup
}

NODE_BANNER='Noisy MCP server starting (banner on stdout)'
DOTENV_LINE='◇ injected env (1) from .env // tip: '
PY_IMPORT='noisy_dep: loaded (printed at import)'
PY_CHILD='noisy child: printed by a child process on the inherited stdout'

CALL=(--call echo --args '{"message":"past the noise"}')

# noisy_sdk TAG N SERVER...: unwrapped, N transport errors; wrapped none, same result.
noisy_sdk() {
  local tag=$1 n=$2
  shift 2
  sdk "$tag-plain" "${CALL[@]}" -- "$@" || { show "$tag-plain"; return 1; }
  sdk "$tag-gated" "${CALL[@]}" -- "$GATE" "$@" || { show "$tag-gated"; return 1; }
  completed "$tag-plain"
  expect_eq "$tag-plain: transport errors unwrapped (the fixture must be noisy)" "$n" \
    "$(q "$tag-plain" '.errors | length')" || { show "$tag-plain"; return 1; }
  clean_sdk "$tag-gated"
  same_result "$tag-plain" "$tag-gated"
}

# noisy_raw TAG TRANSPORT SERVER...: unwrapped, junk lines (listed in $JUNK); wrapped none.
noisy_raw() {
  local tag=$1 transport=$2 line
  shift 2
  raw "$tag-plain" --transport "$transport" "${CALL[@]}" -- "$@" || { show "$tag-plain"; return 1; }
  raw "$tag-gated" --transport "$transport" "${CALL[@]}" -- "$GATE" "$@" || { show "$tag-gated"; return 1; }
  completed "$tag-plain"
  expect_eq "$tag-plain: junk lines unwrapped (the fixture must be noisy)" "${#JUNK[@]}" \
    "$(q "$tag-plain" '.junk_count')" || { show "$tag-plain"; return 1; }
  for line in "${JUNK[@]}"; do
    q "$tag-plain" '.junk[]' | grep -qF -- "$line" || {
      echo "$tag-plain: expected junk line on stdout: $line"; show "$tag-plain"; return 1; }
  done
  clean_raw "$tag-gated"
  # Wrapped, stdout carries exactly the three responses and the noise went to stderr.
  expect_eq "$tag-gated: lines on stdout" 3 "$(q "$tag-gated" '.lines')" || { show "$tag-gated"; return 1; }
  for line in "${JUNK[@]}"; do stderr_has "$tag-gated" "$line"; done
  same_result "$tag-plain" "$tag-gated"
}

# node_raw TAG TRANSPORT, py_raw TAG TRANSPORT: noisy_raw on the noisy Node
# server (its banner and dotenv line the junk) or the noisy Python one (its
# import-time print and its child's line).
node_raw() {
  JUNK=("$NODE_BANNER" "$DOTENV_LINE")
  noisy_raw "node-$1" "$2" "$NODE" "$FIX/noisy-server.cjs"
}

py_raw() {
  JUNK=("$PY_IMPORT" "$PY_CHILD")
  noisy_raw "py-$1" "$2" "$PY" "$FIX/noisy_server.py"
}

@test "noisy Node (banner + dotenv), SDK client: 2 transport errors unwrapped, none wrapped" {
  noisy_sdk node-sdk 2 "$NODE" "$FIX/noisy-server.cjs"
  stderr_has node-sdk-gated "$NODE_BANNER"
  stderr_has node-sdk-gated "$DOTENV_LINE"
}

@test "noisy Node (banner + dotenv), raw client over sockets: junk unwrapped, none wrapped" {
  node_raw sock socket
}

@test "noisy Node (banner + dotenv), raw client over pipes: junk unwrapped, none wrapped" {
  node_raw pipe pipe
}

@test "noisy Python (import print + child), SDK client: 2 transport errors unwrapped, none wrapped" {
  noisy_sdk py-sdk 2 "$PY" "$FIX/noisy_server.py"
  stderr_has py-sdk-gated "$PY_IMPORT"
  stderr_has py-sdk-gated "$PY_CHILD"
}

@test "noisy Python (import print + child), raw client over sockets: junk unwrapped, none wrapped" {
  py_raw sock socket
}

@test "noisy Python (import print + child), raw client over pipes: junk unwrapped, none wrapped" {
  py_raw pipe pipe
}
