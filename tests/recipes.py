#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""recipes.py - read a client recipe under examples/clients/ the way its client would.

usage: recipes.py [--gate PATH] [--stdiogate PATH] FILE
       recipes.py --readme CLONE [SETUP]...
       recipes.py --links ROOT

Parses FILE (JSON, TOML, a `claude mcp add` line, or the `cmd = {...}` line of
a Neovim Lua file), checks the shape its client expects (one server, the
command the absolute path of stdiogate, VS Code's "type": "stdio", Helix's
language entry naming the server), and prints the command line it gives, one
argument per line; with --gate, stdiogate's path is replaced by PATH.  Lines
"env NAME=VALUE" follow for the server's configured environment.  Exit 1 with
a message on stderr if the recipe is malformed.  --stdiogate PATH: the
absolute path the recipe must name instead of /usr/local/bin/stdiogate (for
the entries `stdiogate --check --client` prints: tests/doctor/doctor.bats).

With --readme: checks the command blocks of CLONE's README.md and docs/*.md
against CLONE, a clean clone in which the SETUP commands have been run (see
readme_blocks), and that .ci/run runs the README's test command; exit 1 with
each difference on stderr.

With --links: every relative link of ROOT's README.md and docs/*.md names a
file or directory that exists, and its #anchor a heading of that file; exit 1
with each broken link on stderr.
"""

import difflib
import glob
import json
import os
import re
import shlex
import subprocess
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


# The command blocks of the README and of docs/*.md (--readme): the same
# convention in every file.  A fenced block holds commands when
# it is ```sh or its first line starts with "$ ".  Each one, but for the client
# recipes (the files of examples/clients, shown verbatim), has a marker on the
# line before its fence that says how it is tested:
#   <!-- test: run after SETUP[, SETUP]... -->  its "$ " lines are run with sh in
#       a clean clone where the SETUP commands have been run; the lines after
#       each are its stdout, byte for byte but for the times and byte counts
#       that vary from run to run (MASKS); `stdiogate --check` is given a
#       generous --timeout (SLOW), so that a loaded machine passes too
#   <!-- test: make test-fresh -->  its make commands are make test-fresh's
#       (FRESH_COMMANDS in tests/fresh.mk), which runs them on a fresh Debian 12
#   <!-- test: not run: REASON -->  e.g. it installs into /usr/local
MASKS = [
    (re.compile(r"\b\d+(\.\d+)? (ms|bytes)\b"), r"N \2"),
    (re.compile(r"\(\d+ before "), "(N before "),
    (re.compile(r"^(stdiogate --check \(\w+, timeout )\d+s", re.M), r"\1Ns"),
]
SLOW = "--check --timeout 120 "
FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```$", re.S | re.M)
MARKER = re.compile(r"<!-- test: (.*) -->")


def mask(text):
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    return text


def readme_blocks(text, recipes):
    """(line, marker or None, body) of each command block of a Markdown text."""
    for m in FENCE.finditer(text):
        lang, body = m.group(1), m.group(2)
        if not (lang == "sh" or body.startswith("$ ")) or body in recipes:
            continue
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = MARKER.fullmatch(before)
        yield text.count("\n", 0, m.start()) + 1, marker and marker.group(1), body


# Where the README's output shows the clone (the check prints absolute paths).
README_CLONE = "/home/me/stdiogate"


def run_block(where, body, clone):
    """Runs each "$ " command of body in clone; returns the differences."""
    errors, chunks = [], re.split(r"^\$ ", body, flags=re.M)
    for chunk in chunks[1:]:
        command, _, want = chunk.partition("\n")
        got = subprocess.run(["sh", "-c", command.replace("--check ", SLOW, 1)], cwd=clone,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, timeout=1200)
        got.stdout = got.stdout.replace(os.path.abspath(clone).encode(), README_CLONE.encode())
        if mask(got.stdout.decode("utf-8", "replace")) != mask(want):
            diff = difflib.unified_diff(mask(want).splitlines(), mask(got.stdout.decode(
                "utf-8", "replace")).splitlines(), "README", "stdout", lineterm="")
            errors.append(f"{where}: $ {command}: stdout differs (status "
                          f"{got.returncode}):\n" + "\n".join(diff) + "\nstderr:\n"
                          + got.stderr.decode("utf-8", "replace")[-2000:])
    return errors


def documents(root):
    """README.md and docs/*.md of root, as paths relative to it."""
    return ["README.md"] + sorted(os.path.relpath(f, root)
                                  for f in glob.glob(os.path.join(root, "docs", "*.md")))


def check_readme(clone, provided):
    """Every command block of the README and docs/ is marked, and the marked
    ones hold; .ci/run runs the README's test command."""

    recipes = {open(f, encoding="utf-8").read()
               for f in glob.glob(os.path.join(clone, "examples/clients/*"))}
    with open(os.path.join(clone, "tests/fresh.mk"), encoding="utf-8") as f:
        fresh = re.search(r"^FRESH_COMMANDS \?= (.*)$", f.read(), re.M).group(1)
    errors, ran, readme_fresh = [], 0, []
    for doc in documents(clone):
        text = open(os.path.join(clone, doc), encoding="utf-8").read()
        for line, marker, body in readme_blocks(text, recipes):
            where = f"{doc}:{line}"
            if marker is None:
                errors.append(f"{where}: a command block without a <!-- test: ... --> marker")
            elif marker.startswith("run after "):
                setups = [s.strip() for s in marker[len("run after "):].split(",")]
                unknown = [s for s in setups if s not in provided]
                if unknown:
                    errors.append(f"{where}: the test does not provide {unknown}")
                    continue
                errors += run_block(where, body, clone)
                ran += 1
            elif marker == "make test-fresh":
                shown = re.findall(r"^(make \w+)", body, re.M)
                if shown != shlex.split(fresh):
                    errors.append(f"{where}: shows {shown}, make test-fresh runs {fresh}")
                if doc == "README.md":
                    readme_fresh = shown
            elif not marker.startswith("not run: "):
                errors.append(f"{where}: unknown marker {marker!r}")
    if not ran:
        errors.append("README.md, docs/*.md: no block is run")
    # CI runs exactly the README's test command: the last of its make test-fresh block.
    with open(os.path.join(clone, ".ci/run"), encoding="utf-8") as f:
        ci = [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")
              and not re.match(r"(set|cd) ", l.strip())]
    if not readme_fresh:
        errors.append("README.md: no block marked <!-- test: make test-fresh -->")
    elif ci != readme_fresh[-1:]:
        errors.append(f".ci/run runs {ci}, the README's test command is {readme_fresh[-1]!r}")
    for e in errors:
        print(e, file=sys.stderr)
    sys.exit(1 if errors else 0)


# Relative links (--links): [text](path#anchor) outside code, in README.md
# and docs/*.md.  An anchor is GitHub's: the heading lowercased, without
# punctuation but - and _, its spaces made -, "-1", "-2"... for repeats.
LINK = re.compile(r"\]\(([^()\s]*)\)")


def anchors(text):
    """The anchors of the headings of a Markdown text, outside fenced code."""
    seen, out = {}, set()
    for line in FENCE.sub("", text).splitlines():
        m = re.match(r"#{1,6} (.*)", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def check_links(root):
    errors = []
    for doc in documents(root):
        text = open(os.path.join(root, doc), encoding="utf-8").read()
        prose = re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))
        for m in LINK.finditer(prose):
            target = m.group(1)
            if not target or re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = os.path.normpath(os.path.join(root, os.path.dirname(doc), path)) if path \
                else os.path.join(root, doc)
            if not os.path.exists(file):
                errors.append(f"{doc}: ({target}): no such file")
            elif anchor and not file.endswith(".md"):
                errors.append(f"{doc}: ({target}): an anchor in a file that is not Markdown")
            elif anchor and anchor not in anchors(open(file, encoding="utf-8").read()):
                errors.append(f"{doc}: ({target}): no heading #{anchor} in {os.path.relpath(file, root)}")
    for e in errors:
        print(e, file=sys.stderr)
    sys.exit(1 if errors else 0)


args = sys.argv[1:]
if args[:1] == ["--readme"] and len(args) >= 2:
    check_readme(args[1], args[2:])
if args[:1] == ["--links"] and len(args) == 2:
    check_links(args[1])
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
