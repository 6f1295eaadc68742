# SPDX-License-Identifier: MIT
"""client_opts.py - the command line shared by raw_client.py and ../sdk/py_client.py:
[--call NAME] [--args JSON] [--env K=V]... [--cwd DIR] [--stderr FILE] [--timeout SECONDS]
plus each client's own options, then -- COMMAND [ARG]... (standard library only: py_client.py
runs on the SDK's virtual environment)."""
import json
import sys


def usage(prog, msg):
    sys.stderr.write(f"{prog}: {msg}\n")
    sys.exit(2)


def parse_args(argv, prog, own=None, flags=()):
    """own: {"--name": (key, default, choices or None)} for a client's own valued options;
    flags: the names of its options without a value (each sets opts[name[2:]] = True)."""
    own = own or {}
    opts = {"call": None, "args": {}, "env": {}, "cwd": None, "stderr": None, "timeout": 30.0}
    opts.update({key: default for key, default, _ in own.values()})
    opts.update({f[2:]: False for f in flags})
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("--"):
            break
        if a in flags:
            opts[a[2:]] = True
            i += 1
            continue
        if i + 1 >= len(argv):
            usage(prog, f"{a} needs a value")
        v = argv[i + 1]
        i += 2
        if a in own:
            key, _, choices = own[a]
            if choices and v not in choices:
                usage(prog, f"{a} {'|'.join(choices)}")
            opts[key] = v
        elif a == "--call":
            opts["call"] = v
        elif a == "--args":
            opts["args"] = json.loads(v)
        elif a == "--cwd":
            opts["cwd"] = v
        elif a == "--env":
            k, _, val = v.partition("=")
            opts["env"][k] = val
        elif a == "--stderr":
            opts["stderr"] = v
        elif a == "--timeout":
            opts["timeout"] = float(v)
        else:
            usage(prog, f"unknown option {a}")
    opts["command"] = argv[i:]
    if not opts["command"]:
        usage(prog, "no command")
    return opts
