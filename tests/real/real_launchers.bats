#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Launchers: the same servers started the way users configure them, through real `npx` (offline,
# resolved from the local install in tests/node_modules: npm exec -> sh -c -> node) and through
# `sh -c`, wrapped: the same results as the server started directly, no junk line, no transport
# error. Where the launcher or the server is noisy, both sides are asserted.

load ../integration/real_helpers

setup() {
  real_setup
}

ECHO=(--call echo --args '{"message":"launched"}')

# direct_everything NAME CLIENT [TRANSPORT]: the reference run, server-everything started directly.
direct_everything() {
  "$2" "$1" ${3:+--transport $3} "${ECHO[@]}" -- "$BIN/mcp-server-everything" || { show "$1"; return 1; }
  "clean_$2" "$1"
}

@test "npx --offline @modelcontextprotocol/server-everything, SDK client: wrapped = direct, clean" {
  direct_everything direct sdk
  sdk npx-plain --cwd "$TESTS" "${ECHO[@]}" -- npx -y --offline @modelcontextprotocol/server-everything || { show npx-plain; false; }
  sdk npx-gated --cwd "$TESTS" "${ECHO[@]}" -- "$GATE" npx -y --offline @modelcontextprotocol/server-everything || { show npx-gated; false; }
  clean_sdk npx-plain
  clean_sdk npx-gated
  same_result direct npx-plain
  same_result direct npx-gated
}

@test "npx --offline @modelcontextprotocol/server-everything, raw client over pipes: wrapped = direct, no junk" {
  direct_everything direct raw pipe
  raw npx-gated --transport pipe --cwd "$TESTS" "${ECHO[@]}" -- "$GATE" npx -y --offline @modelcontextprotocol/server-everything || { show npx-gated; false; }
  clean_raw npx-gated
  same_result direct npx-gated
}

@test "npx --offline @modelcontextprotocol/server-filesystem DIR, raw client over sockets: wrapped = unwrapped" {
  local dir="$BATS_TEST_TMPDIR/files"
  mkdir -p "$dir" && echo 'launched through npx' >"$dir/note.txt"
  local call=(--call read_text_file --args "{\"path\":\"$dir/note.txt\"}")
  raw fs-plain --cwd "$TESTS" "${call[@]}" -- npx -y --offline @modelcontextprotocol/server-filesystem "$dir" || { show fs-plain; false; }
  raw fs-gated --cwd "$TESTS" "${call[@]}" -- "$GATE" npx -y --offline @modelcontextprotocol/server-filesystem "$dir" || { show fs-gated; false; }
  clean_raw fs-plain
  clean_raw fs-gated
  same_result fs-plain fs-gated
  expect_eq "file content" '"launched through npx\n"' "$(q fs-gated '.call.content[0].text')"
}

@test "npx --offline -c 'node noisy-server.cjs', SDK client: transport errors unwrapped, none wrapped" {
  sdk nz-direct "${ECHO[@]}" -- "$NODE" "$FIX/noisy-server.cjs" || { show nz-direct; false; }
  sdk nz-plain --cwd "$TESTS" "${ECHO[@]}" -- npx --offline -c "node $FIX/noisy-server.cjs" || { show nz-plain; false; }
  sdk nz-gated --cwd "$TESTS" "${ECHO[@]}" -- "$GATE" npx --offline -c "node $FIX/noisy-server.cjs" || { show nz-gated; false; }
  completed nz-plain
  expect_eq "nz-plain: transport errors unwrapped (banner + dotenv)" 2 "$(q nz-plain '.errors | length')" || { show nz-plain; false; }
  clean_sdk nz-gated
  same_result nz-direct nz-gated
}

@test "sh -c 'exec \"\$0\" \"\$@\"' server-everything, SDK client and raw pipes: wrapped = direct, clean" {
  direct_everything direct-sdk sdk
  direct_everything direct-raw raw pipe
  sdk sh-sdk "${ECHO[@]}" -- "$GATE" sh -c 'exec "$0" "$@"' "$BIN/mcp-server-everything" || { show sh-sdk; false; }
  raw sh-raw --transport pipe "${ECHO[@]}" -- "$GATE" sh -c 'exec "$0" "$@"' "$BIN/mcp-server-everything" || { show sh-raw; false; }
  clean_sdk sh-sdk
  clean_raw sh-raw
  same_result direct-sdk sh-sdk
  same_result direct-raw sh-raw
}

@test "sh -c 'echo banner; server-everything' (shell stays the parent): junk unwrapped, none wrapped" {
  local script="echo 'launcher: starting everything'; $BIN/mcp-server-everything; true"
  direct_everything direct raw socket
  raw shb-plain "${ECHO[@]}" -- sh -c "$script" || { show shb-plain; false; }
  raw shb-gated "${ECHO[@]}" -- "$GATE" sh -c "$script" || { show shb-gated; false; }
  completed shb-plain
  expect_eq "shb-plain: junk lines unwrapped" '["launcher: starting everything"]' "$(q shb-plain '.junk')" || { show shb-plain; false; }
  clean_raw shb-gated
  stderr_has shb-gated 'launcher: starting everything'
  same_result direct shb-gated
}

@test "sh -c noisy Python server (not exec'd), raw client over sockets and SDK client: none wrapped" {
  raw py-direct "${ECHO[@]}" -- "$PY" "$FIX/noisy_server.py" || { show py-direct; false; }
  raw py-sh-plain "${ECHO[@]}" -- sh -c "\"$PY\" \"$FIX/noisy_server.py\"; true" || { show py-sh-plain; false; }
  raw py-sh-gated "${ECHO[@]}" -- "$GATE" sh -c "\"$PY\" \"$FIX/noisy_server.py\"; true" || { show py-sh-gated; false; }
  sdk py-sh-sdk "${ECHO[@]}" -- "$GATE" sh -c "\"$PY\" \"$FIX/noisy_server.py\"; true" || { show py-sh-sdk; false; }
  completed py-sh-plain
  expect_eq "py-sh-plain: junk lines unwrapped" 2 "$(q py-sh-plain '.junk_count')" || { show py-sh-plain; false; }
  clean_raw py-sh-gated
  clean_sdk py-sh-sdk
  same_result py-direct py-sh-gated
}
