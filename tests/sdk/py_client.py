# SPDX-License-Identifier: MIT
"""MCP client on the official Python SDK (mcp 2.x): stdio_client + ClientSession, as Python hosts
launch a server: stdin and stdout are pipes, the environment is the SDK's default plus --env.

usage: py_client.py [--call NAME] [--args JSON] [--env K=V]... [--cwd DIR] [--stderr FILE]
                    [--timeout SECONDS] -- COMMAND [ARG]...

Connects (initialize), lists tools, calls one tool (if --call), closes, and prints one JSON object
on stdout, shaped like tests/integration/sdk-client.mjs's summary:
  { server, protocolVersion, capabilities, instructions, tools, call, errors, failure? }
`errors` holds every line the SDK could not parse as JSON-RPC (it logs "Failed to parse JSONRPC
message from server" and hands the session the exception): this is a second real parser.
Exit status 0 when the session completed (the caller judges `errors`), 1 when it failed.
Runs on the interpreter of build/sdk/py/venv (tests/sdk.mk), where mcp is installed.
"""
import json
import logging
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import client_opts  # noqa: E402  (tests/integration/client_opts.py)


def parse_args(argv):
    return client_opts.parse_args(argv, "py_client")


class ParseErrors(logging.Handler):
    """Collects the SDK's own report of each stdout line it could not parse."""

    def __init__(self, errors):
        super().__init__(logging.ERROR)
        self.errors = errors

    def emit(self, record):
        why = record.exc_info[1] if record.exc_info else None
        self.errors.append(record.getMessage() + (f": {str(why)[:300]}" if why else ""))


def dump(model):
    return None if model is None else model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def session(opts, summary):
    params = StdioServerParameters(command=opts["command"][0], args=opts["command"][1:],
                                   env=opts["env"] or None, cwd=opts["cwd"])
    errlog = open(opts["stderr"], "w") if opts["stderr"] else sys.stderr
    try:
        with anyio.fail_after(opts["timeout"] * 4):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=opts["timeout"]) as s:
                    init = await s.initialize()
                    summary["server"] = dump(init.server_info)
                    summary["protocolVersion"] = init.protocol_version
                    summary["capabilities"] = dump(init.capabilities)
                    summary["instructions"] = init.instructions
                    tools = await s.list_tools()
                    summary["tools"] = sorted(t.name for t in tools.tools)
                    if opts["call"]:
                        summary["call"] = dump(await s.call_tool(opts["call"], opts["args"]))
    finally:
        if errlog is not sys.stderr:
            errlog.close()


def main():
    opts = parse_args(sys.argv[1:])
    errors = []
    logging.getLogger("mcp.client.stdio").addHandler(ParseErrors(errors))
    summary = {"command": opts["command"]}
    status = 0
    try:
        anyio.run(session, opts, summary)
    except BaseException as e:  # noqa: BLE001  (an ExceptionGroup from the task group included)
        status = 1
        summary["failure"] = repr(e)
    summary["errors"] = errors
    sys.stdout.write(json.dumps(summary) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
