#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""recipes.py - read a client recipe under examples/clients/ the way its client would.

usage: recipes.py [--gate PATH] [--stdiogate PATH] FILE

Parses FILE (JSON, TOML, a `claude mcp add` line, or the `cmd = {...}` line of
a Neovim Lua file), checks the shape its client expects (one server, the
command the absolute path of stdiogate, VS Code's "type": "stdio", Helix's
language entry naming the server), and prints the command line it gives, one
argument per line; with --gate, stdiogate's path is replaced by PATH.  Lines
"env NAME=VALUE" follow for the server's configured environment.  Exit 1 with
a message on stderr if the recipe is malformed.  --stdiogate PATH: the
absolute path the recipe must name instead of /usr/local/bin/stdiogate (for
the entries `stdiogate --check --client` prints: tests/doctor.bats).
"""

import json
import re
import shlex
import sys
import tomllib

# The path every recipe uses: where `make install` puts the wrapper.
STDIOGATE = "/usr/local/bin/stdiogate"


def fail(msg):
    sys.exit(f"recipes.py: {path}: {msg}")


def one(table, what):
    if not isinstance(table, dict) or len(table) != 1:
        fail(f"expected exactly one entry under {what}")
    return next(iter(table.values()))


def server_entry(entry):
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        fail("args must be a list of strings")
    env = entry.get("env", {})
    if not isinstance(env, dict):
        fail("env must be an object")
    return [command, *args], env


def parse(path, text):
    if path.endswith(".sh"):
        words = shlex.split(text)
        if words[:3] != ["claude", "mcp", "add"] or len(words) < 6 or words[4] != "--":
            fail("expected: claude mcp add NAME -- COMMAND [ARG]...")
        return words[5:], {}
    if path.endswith(".lua"):
        cmds = re.findall(r"^\s*cmd = \{ ('[^'\\]*'(?:, '[^'\\]*')*) \},$", text, re.M)
        if len(cmds) != 1 or text.count("cmd =") != 1:
            fail("expected one line: cmd = { 'ARG', ... },")
        return re.findall(r"'([^']*)'", cmds[0]), {}
    if path.endswith(".toml"):
        doc = tomllib.loads(text)
        if "mcp_servers" in doc:  # Codex CLI
            return server_entry(one(doc["mcp_servers"], "[mcp_servers]"))
        if "language-server" in doc:  # Helix
            name = next(iter(doc["language-server"]))
            entry = one(doc["language-server"], "[language-server]")
            langs = doc.get("language", [])
            if not any(name in lang.get("language-servers", []) for lang in langs):
                fail(f"no [[language]] uses language server {name}")
            return server_entry(entry)
        fail("neither [mcp_servers] nor [language-server]")
    doc = json.loads(text)
    for key in ("mcpServers", "servers", "context_servers"):
        if key in doc:
            entry = one(doc[key], key)
            if key == "servers" and entry.get("type") != "stdio":  # VS Code
                fail('a VS Code server needs "type": "stdio"')
            return server_entry(entry)
    fail("none of mcpServers, servers, context_servers")


args = sys.argv[1:]
gate = None
while args[:1] in (["--gate"], ["--stdiogate"]) and len(args) >= 3:
    if args[0] == "--gate":
        gate = args[1]
    else:
        STDIOGATE = args[1]
    args = args[2:]
if len(args) != 1:
    sys.exit(__doc__)
path = args[0]
with open(path, encoding="utf-8") as f:
    argv, env = parse(path, f.read())
if not argv or argv[0] != STDIOGATE:
    fail(f"the command must be {STDIOGATE} (an absolute path), not {argv[:1]}")
if len(argv) < 2:
    fail("no server after stdiogate")
if gate:
    argv[0] = gate
for a in argv:
    print(a)
for k, v in env.items():
    print(f"env {k}={v}")
