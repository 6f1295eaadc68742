#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The client recipes (examples/clients/): docs/CLIENTS.md shows each file
# verbatim and the README links each, each parses as its client reads it (tests/recipes.py), and the
# command line it gives, with the wrapper's absolute path replaced by this
# tree's ./stdiogate, runs a pinned real server clean: MCP servers from
# tests/node_modules through the official TypeScript SDK client, pylsp (LSP,
# Debian's python3-pylsp) through tests/client.py.

load ../integration/real_helpers

CLIENTS="$ROOT/examples/clients"

setup() {
  real_setup
}

# recipe FILE: sets CMD to the recipe's command line (through this tree's
# wrapper) and ENV_OPTS to its environment as client options.
recipe() {
  local out line
  out=$("$PY" "$TESTS/recipes.py" --gate "$GATE" "$CLIENTS/$1") || return 1
  CMD=() ENV_OPTS=()
  while IFS= read -r line; do
    case $line in
      "env "*) ENV_OPTS+=(--env "${line#env }") ;;
      *) CMD+=("$line") ;;
    esac
  done <<<"$out"
  [ "${CMD[0]}" = "$GATE" ]
}

# mcp_recipe FILE SERVER-NAME CLIENT-OPTION...: the recipe's server, started by
# the SDK client from tests/ (npx resolves the pinned packages offline), lists
# its tools and answers the call with no transport error; the gate opened.
mcp_recipe() {
  local file=$1 name=$2 tag=${1%%.*}
  shift 2
  recipe "$file"
  sdk "$tag" --cwd "$TESTS" --env npm_config_offline=true --env STDIOGATE_DEBUG=2 \
    "${ENV_OPTS[@]}" "$@" -- "${CMD[@]}" || { show "$tag"; return 1; }
  clean_sdk "$tag"
  expect_eq "$file: server" "\"$name\"" "$(q "$tag" '.server.name')"
  stderr_has "$tag" 'gate opened by'
}

everything_recipe() {
  mcp_recipe "$1" mcp-servers/everything --call echo --args '{"message":"from the recipe"}'
  expect_eq "$1: echo" '"Echo: from the recipe"' "$(q "${1%%.*}" '.call.content[0].text')"
}

# lsp_recipe FILE: pylsp under the recipe's command line answers initialize and
# shutdown; stdout holds exactly those two Content-Length frames.
lsp_recipe() {
  recipe "$1"
  local init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}'
  STDIOGATE_DEBUG=2 "$PY" "$TESTS/client.py" --sockets --framing lsp --timeout 30 \
    --lsp "$init" --lsp '{"jsonrpc":"2.0","id":2,"method":"shutdown"}' \
    --out lsp.out --err lsp.err -- "${CMD[@]}" || { cat lsp.err; return 1; }
  "$PY" - lsp.out <<'PY' || { cat lsp.err; return 1; }
import json, re, sys
buf = open(sys.argv[1], "rb").read()
ids = []
while buf:
    m = re.match(rb"Content-Length: (\d+)\r\n(?:Content-Type: [^\r\n]*\r\n)?\r\n", buf)
    assert m, "not a frame: %r" % buf[:80]
    end = m.end() + int(m.group(1))
    msg = json.loads(buf[m.end():end])
    assert msg["jsonrpc"] == "2.0", msg
    ids.append(msg["id"])
    if msg["id"] == 1:
        assert msg["result"]["serverInfo"]["name"] == "pylsp", msg
        assert "capabilities" in msg["result"], msg
    buf = buf[end:]
assert ids == [1, 2], ids
PY
  grep -q 'gate opened by' lsp.err
}

@test "recipes: docs/CLIENTS.md shows every file of examples/clients verbatim, and the README links each" {
  "$PY" - "$ROOT/docs/CLIENTS.md" "$ROOT/README.md" "$CLIENTS" <<'PY'
import os, re, sys
doc, readme, clients = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
names = sorted(os.listdir(clients))
assert names, "no recipes"
linked = set(re.findall(r"\]\(\.\./examples/clients/([^)]+)\)", doc))
assert linked == set(names), "docs/CLIENTS.md links %s, files %s" % (sorted(linked), names)
for name in names:
    at = doc.index("](../examples/clients/%s)" % name)
    m = re.compile(r"^```[a-z]*\n(.*?)^```$", re.S | re.M).search(doc, at)
    want = open(os.path.join(clients, name)).read()
    assert m and m.group(1) == want, "%s: the docs/CLIENTS.md block after its link differs" % name
linked = set(re.findall(r"\]\(examples/clients/([^)]+)\)", readme))
assert linked == set(names), "README links %s, files %s" % (sorted(linked), names)
PY
}

@test "recipes: every recipe names stdiogate by its absolute path and parses" {
  for f in "$CLIENTS"/*; do
    "$PY" "$TESTS/recipes.py" "$f" >/dev/null
  done
  # A recipe with a bare "stdiogate" fails the check (the check can fail).
  sed 's|/usr/local/bin/stdiogate|stdiogate|' "$CLIENTS/cursor.json" >bare.json
  run "$PY" "$TESTS/recipes.py" bare.json
  [ "$status" -eq 1 ]
  [[ "$output" == *"absolute path"* ]]
}

@test "recipe: Claude Code, claude mcp add" {
  everything_recipe claude-code.sh
}

@test "recipe: Claude Code, project .mcp.json" {
  everything_recipe claude-code.mcp.json
}

@test "recipe: Claude Desktop" {
  everything_recipe claude-desktop.json
}

@test "recipe: Cursor (server-memory)" {
  mcp_recipe cursor.json memory-server --env "MEMORY_FILE_PATH=$BATS_TEST_TMPDIR/memory.jsonl" \
    --call read_graph
}

@test "recipe: VS Code, .vscode/mcp.json" {
  everything_recipe vscode.json
}

@test "recipe: Windsurf" {
  everything_recipe windsurf.json
}

@test "recipe: Zed, context_servers" {
  everything_recipe zed.json
}

@test "recipe: Codex CLI, config.toml" {
  everything_recipe codex.toml
}

@test "recipe: Neovim, vim.lsp.config cmd (pylsp)" {
  lsp_recipe neovim.lua
}

@test "recipe: Helix, languages.toml (pylsp)" {
  lsp_recipe helix.toml
}

@test "README, docs: every command block is marked, and the ones it runs work as written in a clean clone" {
  # A clone of this tree's HEAD, as a user gets it, given what the markers' SETUP
  # commands make: `make` (the library and programs, copied from this tree's
  # build) and `make npm-deps` (tests/node_modules, linked to this tree's).
  [ -n "$(git -C "$ROOT" ls-files)" ] || skip "not a git checkout"
  git clone -q "$ROOT" clone
  cp "$ROOT/libstdiogate.so" "$ROOT/stdiogate-check" "$ROOT/stdiogate-filter" clone/
  ln -s "$TESTS/node_modules" clone/tests/node_modules
  "$PY" "$TESTS/recipes.py" --readme clone 'make' 'make npm-deps'
  # Without tests/node_modules the block fails, as it did on a fresh clone.
  rm clone/tests/node_modules
  run "$PY" "$TESTS/recipes.py" --readme clone 'make' 'make npm-deps'
  [ "$status" -eq 1 ]
  [[ "$output" == *"docs/CHECK.md:"*"Cannot find module"* ]]
}

@test "README, docs: a command block in docs/ without a marker fails, so does a .ci/run that runs another command" {
  [ -n "$(git -C "$ROOT" ls-files)" ] || skip "not a git checkout"
  git clone -q "$ROOT" clone
  cp "$ROOT/libstdiogate.so" "$ROOT/stdiogate-check" "$ROOT/stdiogate-filter" clone/
  ln -s "$TESTS/node_modules" clone/tests/node_modules
  printf '# New\n\n```sh\nmake something\n```\n' >clone/docs/NEW.md
  printf 'make test-fast\n' >>clone/.ci/run
  run "$PY" "$TESTS/recipes.py" --readme clone 'make' 'make npm-deps'
  [ "$status" -eq 1 ]
  [[ "$output" == *"docs/NEW.md:3: a command block without a <!-- test: ... --> marker"* ]]
  [[ "$output" == *".ci/run runs ['make test', 'make test-fast'], the README's test command is 'make test'"* ]]
}

@test "README, docs: every relative link names a file that exists, and its #anchor a heading there" {
  "$PY" "$TESTS/recipes.py" --links "$ROOT"
  # A broken file and a broken anchor are found (the check can fail).
  mkdir -p tree/docs
  cp "$ROOT/README.md" tree/
  cp "$ROOT"/docs/*.md tree/docs/
  printf '[a](docs/NOPE.md) [b](docs/LIMITS.md#nope)\n' >>tree/README.md
  run "$PY" "$TESTS/recipes.py" --links tree
  [ "$status" -eq 1 ]
  [[ "$output" == *"README.md: (docs/NOPE.md): no such file"* ]]
  [[ "$output" == *"README.md: (docs/LIMITS.md#nope): no heading #nope in docs/LIMITS.md"* ]]
}
