#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Strict raw MCP stdio client (Python stdlib only).

usage: raw_client.py [--transport socket|pipe] [--first initialize|ping|discover]
                     [--call NAME] [--args JSON] [--digest] [--cwd DIR] [--env K=V]...
                     [--stderr FILE] [--timeout SECONDS] -- COMMAND [ARG]...

Starts COMMAND with stdin and stdout on AF_UNIX socket pairs (as Node-based clients do: Claude
Desktop, VS Code, the Inspector) or on pipes (as Python's subprocess.PIPE does), records every line
the server writes to stdout and checks that each one is a JSON object with a top-level "jsonrpc"
member. Anything else is a junk line.

Conversation: optionally `ping` or `server/discover` first (the answer may be a result or an error
response: what matters is that a JSON-RPC response with that id arrives on stdout), then
initialize, notifications/initialized, tools/list (all pages), optionally one tools/call. Then it
closes the server's stdin and reads stdout to end of file, so lines written late are counted too,
and waits for the server to exit. Requests from the server are answered with "method not found".
The server gets the TypeScript SDK client's default environment (HOME, LOGNAME, PATH, SHELL, TERM,
USER) plus --env K=V.

Prints one JSON object on stdout:
  transport, first (the first request's response, or null), server, protocolVersion, capabilities,
  instructions, tools, call, lines (number of lines on stdout), junk_count, junk (up to 20, cut to
  300 characters), max_line_bytes, notifications (methods, in order), exit (status, negative for a
  signal), killed (true when the server did not exit after end of input and was killed),
  failure (when a request got no response).
Exit status 0 when every request got its response, 1 otherwise, 2 on usage errors.
"""
import hashlib
import json
import os
import queue
import socket
import subprocess
import sys
import threading

import client_opts

PROTOCOL_VERSION = "2025-11-25"
DEFAULT_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def parse_args(argv):
    return client_opts.parse_args(argv, "raw_client", {
        "--transport": ("transport", "socket", ("socket", "pipe")),
        "--first": ("first", "initialize", ("initialize", "ping", "discover")),
    }, flags=("--digest",))


class Server:
    def __init__(self, opts):
        self.lines = 0
        self.junk = []
        self.junk_count = 0
        self.max_line_bytes = 0
        self.inbox = queue.Queue()
        if opts["transport"] == "socket":
            in_parent, in_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            out_parent, out_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            self._keep = (in_parent, out_parent)
            self.to_server = in_parent.detach()
            self.from_server = out_parent.detach()
            child_in, child_out = in_child.detach(), out_child.detach()
        else:
            child_in, self.to_server = os.pipe()
            self.from_server, child_out = os.pipe()
        # The same environment the TypeScript SDK client gives a server: a few safe variables plus
        # what the caller adds (--env). Nothing else leaks in from the test runner (such as
        # PYTHONUNBUFFERED, which would change the server's buffering on both sides).
        env = {k: os.environ[k] for k in DEFAULT_ENV if k in os.environ}
        env.update(opts["env"])
        err = open(opts["stderr"], "wb") if opts["stderr"] else None
        self.proc = subprocess.Popen(opts["command"], stdin=child_in, stdout=child_out, stderr=err,
                                     cwd=opts["cwd"], env=env)
        if err:
            err.close()
        os.close(child_in)
        os.close(child_out)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _line(self, raw):
        self.lines += 1
        self.max_line_bytes = max(self.max_line_bytes, len(raw))
        msg = None
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            pass
        if isinstance(msg, dict) and "jsonrpc" in msg:
            self.inbox.put(msg)
            return
        self.junk_count += 1
        if len(self.junk) < 20:
            self.junk.append(raw[:300].decode("utf-8", "replace"))

    def _read(self):
        buf = bytearray()
        scanned = 0
        while True:
            try:
                chunk = os.read(self.from_server, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buf += chunk
            while True:
                nl = buf.find(b"\n", scanned)
                if nl < 0:
                    scanned = len(buf)
                    break
                line = bytes(buf[:nl])
                del buf[:nl + 1]
                scanned = 0
                if line.endswith(b"\r"):
                    line = line[:-1]
                self._line(line)
        if buf:  # an unterminated last line
            self._line(bytes(buf))
        self.inbox.put(None)  # end of file

    def send(self, msg):
        data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            n = os.write(self.to_server, view)
            view = view[n:]

    def close_input(self):
        if self.to_server is not None:
            os.close(self.to_server)
            self.to_server = None


def main():
    opts = parse_args(sys.argv[1:])
    timeout = opts["timeout"]
    srv = Server(opts)
    summary = {"transport": opts["transport"], "first": None}
    notifications = []
    eof = [False]

    def wait_response(req_id):
        """Next response with this id; answers server requests, records notifications."""
        while True:
            try:
                msg = srv.inbox.get(timeout=timeout)
            except queue.Empty:
                raise RuntimeError(f"no response to id {req_id!r} within {timeout}s")
            if msg is None:
                eof[0] = True
                raise RuntimeError(f"end of stdout before the response to id {req_id!r}")
            if "method" in msg:
                if "id" in msg:
                    srv.send({"jsonrpc": "2.0", "id": msg["id"],
                              "error": {"code": -32601, "message": "method not found"}})
                else:
                    notifications.append(msg["method"])
                continue
            if msg.get("id") == req_id:
                return msg

    def request(req_id, method, params=None):
        msg = {"jsonrpc": "2.0", "id": req_id, "method": method}
        if params is not None:
            msg["params"] = params
        srv.send(msg)
        return wait_response(req_id)

    status = 0
    try:
        if opts["first"] == "ping":
            summary["first"] = request("first-ping", "ping")
        elif opts["first"] == "discover":
            summary["first"] = request("first-discover", "server/discover", {})
        init = request(1, "initialize", {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "stdiogate-raw-client", "version": "1.0.0"},
        })
        if "error" in init:
            raise RuntimeError(f"initialize failed: {init['error']}")
        res = init["result"]
        summary["server"] = res.get("serverInfo")
        summary["protocolVersion"] = res.get("protocolVersion")
        summary["capabilities"] = res.get("capabilities")
        summary["instructions"] = res.get("instructions")
        srv.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, cursor, n = [], None, 2
        while True:
            resp = request(n, "tools/list", {"cursor": cursor} if cursor else {})
            n += 1
            if "error" in resp:
                raise RuntimeError(f"tools/list failed: {resp['error']}")
            tools += [t["name"] for t in resp["result"].get("tools", [])]
            cursor = resp["result"].get("nextCursor")
            if not cursor:
                break
        summary["tools"] = sorted(tools)
        if opts["call"]:
            resp = request(n, "tools/call", {"name": opts["call"], "arguments": opts["args"]})
            call = resp.get("result", {"error": resp.get("error")})
            if opts["digest"] and isinstance(call.get("content"), list):
                call = dict(call)
                call["content"] = [
                    {"type": "text", "length": len(c["text"]),
                     "sha256": hashlib.sha256(c["text"].encode()).hexdigest()}
                    if c.get("type") == "text" else c
                    for c in call["content"]]
            summary["call"] = call
    except (RuntimeError, OSError) as e:
        summary["failure"] = str(e)
        status = 1

    # End of input: the server should finish; read its stdout to the end.
    srv.close_input()
    killed = False
    srv.reader.join(timeout)
    if srv.reader.is_alive():
        killed = True
        srv.proc.kill()
        srv.reader.join()
    try:
        code = srv.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        killed = True
        srv.proc.kill()
        code = srv.proc.wait()
    # Whatever is still queued after the last response (late notifications).
    while True:
        try:
            msg = srv.inbox.get_nowait()
        except queue.Empty:
            break
        if msg is not None and "method" in msg and "id" not in msg:
            notifications.append(msg["method"])
    summary.update({"lines": srv.lines, "junk_count": srv.junk_count, "junk": srv.junk,
                    "max_line_bytes": srv.max_line_bytes, "notifications": notifications,
                    "exit": code, "killed": killed})
    sys.stdout.write(json.dumps(summary) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
