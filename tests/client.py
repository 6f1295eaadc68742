#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""client.py - a scripted stdio client for the stdiogate tests (stdlib only).

usage: client.py [OPTIONS] -- COMMAND [ARG...]
       (tests/fixtures/tree_client.py OUT ERR [OPTIONS] -- COMMAND [ARG...]
       runs this client with --mcp --session --stderr-file --timeout 30)

Starts COMMAND with stdin and stdout as pipes (or AF_UNIX socketpairs with
--sockets, as Node-based MCP clients do), optionally waits for a text on its
stderr, sends the messages, waits until it has answered with the expected
number of frames, closes stdin and waits for COMMAND to exit.  Then it writes
the exact bytes COMMAND wrote to stdout and to stderr to the files given, and
exits with COMMAND's exit status (128+N if killed by signal N).  Every wait is
bounded: on a timeout it says so on its own stderr, kills COMMAND, still
writes the files and exits 124.  Usage errors: exit 2.

Messages (in order; all options may repeat):
  --send TEXT        TEXT exactly as given (use $'...\\n' in bash)
  --line TEXT        TEXT followed by a newline
  --lsp TEXT         TEXT framed as "Content-Length: N\\r\\n\\r\\n" + TEXT
  --send-file FILE   the bytes of FILE
  --mcp              the opening an MCP client makes: initialize (id 1),
                     its answer awaited, then notifications/initialized and
                     ping (id 2), the ping's answer awaited

How to send:
  --bytewise         one byte per write, each only after COMMAND has consumed
                     the previous one (FIONREAD on the pipe / SIOCOUTQ on the
                     socket), so each read COMMAND makes sees at most one byte
  --split N          write the first N bytes of the first message, wait until
                     they are consumed, then the rest (same synchronisation)
  --split-every      run the whole session once for every split offset N of
                     the first message (1 .. length-1); --out and --err
                     must contain %d (replaced by N); exit status: the
                     worst one, each nonzero one named on stderr
  --each             after each message, wait for one more frame before
                     sending the next one
  --wait-err TEXT    before sending anything, wait until COMMAND's stderr
                     contains TEXT (for output made while stdin is empty)
  --stop-helper TEXT before sending anything, wait for the library's level-3
                     line naming the drain's helper ("through the helper,
                     process N", or "... the helper started, process N"
                     when it starts lazily: STDIOGATE_DEBUG=3) and stop that process
                     (SIGSTOP); continue it (SIGCONT) once COMMAND's stderr
                     contains TEXT (any one, if given more than once), and
                     at the end in any case (so that the order of the
                     helper's copy against COMMAND's own stderr writes
                     shows whether COMMAND waited for it)
  --stdin-file       do not send: COMMAND's stdin is a regular file holding
                     the messages (for pread/preadv); then wait for exit
  --no-close         keep stdin open until COMMAND exits by itself
  --answer ID        after the message before it, wait for a frame whose
                     "id" is ID (JSON: 1, "p1"), other lines skipped

What to expect:
  --frames N         frames to wait for before closing stdin (default: the
                     number of messages); 0: close stdin at once
  --framing line|lsp newline-delimited JSON-RPC (a frame is a line holding a
                     JSON object with a "jsonrpc" member, or a DAP "response")
                     or Content-Length framed (default: line)
                     (with --answer or --mcp, --frames defaults to 0: the
                     answers are the waits)
  --eof-within SECS  after closing stdin, end of file on stdout must come
                     within SECS, and COMMAND's exit within what is left
                     (a child left holding stdout is a hung client)

The command:
  --gate             run COMMAND under stdiogate: the wrapper named by
                     $STDIOGATE_WRAPPER if set, else as the wrapper would
                     (LD_PRELOAD=$STDIOGATE_LIB, STDIOGATE_WIRE=<dev:ino of
                     stdout>)
  --sockets          stdin and stdout are AF_UNIX stream socketpairs
  --close FD         start COMMAND with FD (0, 1 or 2) closed
  --nofile N         start COMMAND with RLIMIT_NOFILE (soft and hard) N
  --one-socket       stdin and stdout are one AF_UNIX socket (socat EXEC,
                     inetd style); closing stdin is shutdown(SHUT_WR)
  --stderr-file      COMMAND's stderr is the regular file given by --err
                     (not a pipe); --wait-err cannot be used with it
  --stderr-inherit   COMMAND's stderr is this client's stderr (not captured)
  --stderr-late      COMMAND's stderr is a pipe this client starts reading
                     only once COMMAND has exited (a stderr nobody reads
                     while the server runs)

  --socket           the same as --sockets
  --session          start COMMAND in a new session; on a timeout, kill
                     its whole process group

Output:
  --out FILE         COMMAND's stdout bytes
  --wire-size FILE   the capacity of the stdout pipe at the end (F_GETPIPE_SZ
                     on this client's end), in decimal
  --err FILE         COMMAND's stderr bytes
  --pid-file FILE    the pid of the process this client started (COMMAND)
  --timeout SECS     bound for every wait (default 20)
"""

import fcntl
import json
import os
import re
import resource
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time

FIONREAD = termios.FIONREAD
SIOCOUTQ = termios.TIOCOUTQ  # same number on Linux


# The opening of an MCP session (--mcp), byte for byte as the tree tests
# have always sent it.
MCP_INITIALIZE = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":'
                  b'{"protocolVersion":"2025-06-18","capabilities":{},'
                  b'"clientInfo":{"name":"tree-client","version":"1"}}}\n')
MCP_INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
MCP_PING = b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n'


class Timeout(Exception):
    pass


def usage(msg):
    sys.stderr.write("client.py: %s\n" % msg)
    sys.exit(2)


# The options that set one key: FLAGS to True, VALUES to their argument
# (converted).
FLAGS = {
    "--bytewise": "bytewise",
    "--split-every": "split_every",
    "--each": "each",
    "--stdin-file": "stdin_file",
    "--no-close": "no_close",
    "--gate": "gate",
    "--sockets": "sockets",
    "--one-socket": "one_socket",
    "--stderr-file": "stderr_file",
    "--stderr-inherit": "stderr_inherit",
    "--stderr-late": "stderr_late",
    "--socket": "sockets",
    "--session": "session",
}
VALUES = {
    "--split": ("split", int),
    "--frames": ("frames", int),
    "--framing": ("framing", str),
    "--nofile": ("nofile", int),
    "--out": ("out", str),
    "--wire-size": ("wire_size", str),
    "--err": ("err", str),
    "--pid-file": ("pid_file", str),
    "--timeout": ("timeout", float),
    "--eof-within": ("eof_within", float),
}


def parse_args(argv):
    o = {
        "msgs": [], "bytewise": False, "split": None, "split_every": False, "each": False,
        "wait_err": None, "stop_helper": [], "stdin_file": False, "no_close": False,
        "frames": None, "framing": "line", "gate": False, "sockets": False,
        "close": [], "nofile": None, "one_socket": False, "stderr_file": False, "stderr_inherit": False, "stderr_late": False, "out": None, "err": None, "pid_file": None,
        "timeout": 20.0, "cmd": None,
        "answers": {}, "eof_within": None, "session": False, "wire_size": None,
    }
    i = 0

    def arg():
        nonlocal i
        i += 1
        if i >= len(argv):
            usage("%s needs an argument" % argv[i - 1])
        return argv[i]

    while i < len(argv):
        a = argv[i]
        if a == "--":
            o["cmd"] = argv[i + 1:]
            break
        elif a in FLAGS:
            o[FLAGS[a]] = True
        elif a in VALUES:
            key, kind = VALUES[a]
            o[key] = kind(arg())
        elif a == "--send":
            o["msgs"].append(arg().encode())
        elif a == "--line":
            o["msgs"].append(arg().encode() + b"\n")
        elif a == "--lsp":
            body = arg().encode()
            o["msgs"].append(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        elif a == "--send-file":
            with open(arg(), "rb") as f:
                o["msgs"].append(f.read())
        elif a == "--wait-err":
            o["wait_err"] = arg().encode()
        elif a == "--stop-helper":
            o["stop_helper"].append(arg().encode())
        elif a == "--close":
            fd = int(arg())
            if fd not in (0, 1, 2):
                usage("--close: 0, 1 or 2")
            o["close"].append(fd)
        elif a == "--mcp":
            o["msgs"].append(MCP_INITIALIZE)
            o["answers"].setdefault(len(o["msgs"]) - 1, []).append(1)
            o["msgs"] += [MCP_INITIALIZED, MCP_PING]
            o["answers"].setdefault(len(o["msgs"]) - 1, []).append(2)
        elif a == "--answer":
            if not o["msgs"]:
                usage("--answer follows the message it answers")
            try:
                want = json.loads(arg())
            except ValueError:
                usage("--answer: a JSON id (1, \"p1\")")
            o["answers"].setdefault(len(o["msgs"]) - 1, []).append(want)
        else:
            usage("unknown option %r" % a)
        i += 1
    if o["framing"] not in ("line", "lsp"):
        usage("--framing: line or lsp")
    if not o["cmd"]:
        usage("no command (put it after --)")
    if o["frames"] is None:
        o["frames"] = 0 if o["answers"] else len(o["msgs"])
    return o


def count_frames(buf, framing):
    """Complete protocol frames in buf (junk lines are not frames)."""
    n = 0
    if framing == "lsp":
        # Other header fields (Content-Type) may follow Content-Length.
        for m in re.finditer(rb"Content-Length: *(\d+)\r\n(?:[^\r\n:]+:[^\r\n]*\r\n)*\r\n", buf):
            if len(buf) - m.end() >= int(m.group(1)):
                n += 1
        return n
    for line in buf.split(b"\n")[:-1]:
        try:
            v = json.loads(line)
        except (ValueError, RecursionError):  # a line nested too deep for json is no frame
            continue
        if isinstance(v, dict) and ("jsonrpc" in v or v.get("type") == "response"):
            n += 1
    return n


def frame_ids(buf, framing):
    """The "id" of every complete frame in buf that is a JSON object."""
    if framing == "lsp":
        bodies = []
        for m in re.finditer(rb"Content-Length: *(\d+)\r\n(?:[^\r\n:]+:[^\r\n]*\r\n)*\r\n", buf):
            body = buf[m.end():m.end() + int(m.group(1))]
            if len(body) == int(m.group(1)):
                bodies.append(body)
    else:
        bodies = buf.split(b"\n")[:-1]
    ids = []
    for b in bodies:
        try:
            v = json.loads(b)
        except (ValueError, RecursionError):
            continue
        if isinstance(v, dict) and "id" in v:
            ids.append(v["id"])
    return ids


class Reader(threading.Thread):
    """Collects everything from one file descriptor until EOF."""

    def __init__(self, fd, cond):
        super().__init__(daemon=True)
        self.fd, self.cond, self.buf, self.eof = fd, cond, b"", False

    def run(self):
        while True:
            try:
                b = os.read(self.fd, 65536)
            except OSError:
                b = b""
            with self.cond:
                if b:
                    self.buf += b
                else:
                    self.eof = True
                self.cond.notify_all()
            if not b:
                return


def main():
    o = parse_args(sys.argv[1:])
    if not o["split_every"]:
        sys.exit(run_session(o, o["out"], o["err"]))
    if not o["msgs"] or len(o["msgs"][0]) < 2:
        usage("--split-every needs a first message of 2 bytes or more")
    if not (o["out"] and "%d" in o["out"] and o["err"] and "%d" in o["err"]):
        usage("--split-every needs --out and --err with %d in them")
    worst = 0
    for k in range(1, len(o["msgs"][0])):
        o["split"] = k
        st = run_session(o, o["out"].replace("%d", str(k)), o["err"].replace("%d", str(k)))
        if st != 0:
            sys.stderr.write("client.py: split at %d: status %d\n" % (k, st))
            worst = max(worst, st)
    sys.exit(worst)


def run_session(o, out_path, err_path):
    deadline_for = lambda: time.monotonic() + o["timeout"]
    env = dict(os.environ)
    cmd = list(o["cmd"])

    # stdin and stdout: (child end, our end)
    tmpfile = None
    if o["stdin_file"]:
        tmpfile = tempfile.TemporaryFile()
        tmpfile.write(b"".join(o["msgs"]))
        tmpfile.flush()
        tmpfile.seek(0)
        in_child, in_ours = tmpfile.fileno(), None
    elif o["sockets"] or o["one_socket"]:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        in_child, in_ours = a.detach(), b.detach()
    else:
        in_child, in_ours = os.pipe()  # (read end, write end)
    if o["one_socket"]:
        out_child, out_ours = in_child, in_ours
    elif o["sockets"]:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        out_child, out_ours = a.detach(), b.detach()
    else:
        out_ours, out_child = os.pipe()
    if o["stderr_inherit"]:
        err_child, err_ours = None, None
    elif o["stderr_file"]:
        err_child, err_ours = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), None
    else:
        err_ours, err_child = os.pipe()

    if o["gate"]:
        wrapper = env.get("STDIOGATE_WRAPPER", "")
        if wrapper:
            cmd = [wrapper, "--"] + cmd
        else:
            lib = env.get("STDIOGATE_LIB", "")
            if not lib:
                usage("--gate: neither STDIOGATE_WRAPPER nor STDIOGATE_LIB is set")
            pre = env.get("LD_PRELOAD", "")
            env["LD_PRELOAD"] = lib + (" " + pre if pre else "")
            if 1 not in o["close"]:
                st = os.fstat(out_child)
                env["STDIOGATE_WIRE"] = "%d:%d" % (st.st_dev, st.st_ino)

    child_fds = {0: in_child, 1: out_child, 2: err_child}
    closing = list(o["close"])
    nofile = o["nofile"]

    def setup():
        # Runs in the child: close what was asked, lower the limit.
        for fd in closing:
            os.close(fd)
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    popen_kw = dict(
        stdin=in_child if 0 not in closing else subprocess.DEVNULL,
        stdout=out_child if 1 not in closing else subprocess.DEVNULL,
        stderr=(err_child if err_child is not None else None)
        if 2 not in closing else subprocess.DEVNULL,
        env=env, close_fds=True,
        start_new_session=o["session"],
        preexec_fn=setup if closing or nofile is not None else None,
    )
    try:
        proc = subprocess.Popen(cmd, **popen_kw)
    except OSError as e:
        sys.stderr.write("client.py: cannot start %s: %s\n" % (cmd[0], e))
        return 127
    if o["pid_file"]:
        with open(o["pid_file"], "w") as f:
            f.write("%d\n" % proc.pid)
    for fd in {in_child, out_child, err_child}:
        if fd is not None and not (tmpfile is not None and fd == tmpfile.fileno()):
            os.close(fd)
    if tmpfile is not None:
        tmpfile.close()

    cond = threading.Condition()
    out_r = Reader(out_ours, cond)
    out_r.start()
    err_r = None
    if err_ours is not None:
        err_r = Reader(err_ours, cond)
        if not o["stderr_late"]:
            err_r.start()

    def wait_for(pred, what):
        end = deadline_for()
        with cond:
            while not pred():
                if proc.poll() is not None and out_r.eof and (err_r is None or err_r.eof or o["stderr_late"]):
                    raise Timeout("%s (command exited with status %s)" % (what, proc.returncode))
                left = end - time.monotonic()
                if left <= 0:
                    raise Timeout(what)
                cond.wait(min(left, 0.05))

    def frames():
        return count_frames(out_r.buf, o["framing"])

    def consumed(fd):
        # Wait until the command has read every byte written so far.
        req = SIOCOUTQ if o["sockets"] else FIONREAD
        end = deadline_for()
        while True:
            n = struct.unpack("i", fcntl.ioctl(fd, req, b"\0\0\0\0"))[0]
            if n == 0:
                return
            if proc.poll() is not None:
                raise Timeout("command exited with %d unread bytes" % n)
            if time.monotonic() > end:
                raise Timeout("%d bytes still unread" % n)
            time.sleep(0.0005)  # polling a condition, not a timing guess

    def answered(idx):
        # Wait for the answers to message idx; stdout's end ends the wait.
        for want in o["answers"].get(idx, []):
            def got():
                if any(i == want and type(i) is type(want) for i in frame_ids(out_r.buf, o["framing"])):
                    return True
                if out_r.eof:
                    raise Timeout("end of file on stdout before the answer to id %s" % json.dumps(want))
                return False
            wait_for(got, "waiting for the answer to id %s" % json.dumps(want))

    def wait_eof(secs):
        # A child left holding stdout open would hang a real client.
        end = time.monotonic() + secs
        with cond:
            while not out_r.eof:
                left = end - time.monotonic()
                if left <= 0:
                    raise Timeout("no end of file on stdout within %g s after stdin was closed" % secs)
                cond.wait(min(left, 0.05))
        return end

    def send(data):
        try:
            if o["bytewise"]:
                for k in range(len(data)):
                    os.write(in_ours, data[k:k + 1])
                    consumed(in_ours)
            else:
                view = memoryview(data)
                while view:
                    k = os.write(in_ours, view)
                    view = view[k:]
        except BrokenPipeError:
            raise Timeout("command closed its stdin")

    def close_stdin():
        if o["one_socket"]:
            # stdin and stdout are one socket: end only our sending side
            s = socket.socket(fileno=os.dup(in_ours))
            try:
                s.shutdown(socket.SHUT_WR)
            finally:
                s.close()
        else:
            os.close(in_ours)

    stopped = {"pid": None, "done": False}

    def stop_helper():
        # The helper's pid from the library's level-3 line; it is continued
        # by a thread that watches stderr (the client goes on meanwhile).
        if err_r is None or o["stderr_late"]:
            usage("--stop-helper needs a stderr read while the command runs")
        helper = re.compile(rb"(?:through the helper|the helper started), process (\d+)\n")
        wait_for(lambda: helper.search(err_r.buf),
                 "waiting for the level-3 line that names the helper")
        stopped["pid"] = int(helper.search(err_r.buf).group(1))
        os.kill(stopped["pid"], signal.SIGSTOP)

        def watch():
            with cond:
                while not (stopped["done"] or err_r.eof or
                           any(t in err_r.buf for t in o["stop_helper"])):
                    cond.wait(0.05)
            cont_helper()
        threading.Thread(target=watch, daemon=True).start()

    def cont_helper():
        try:
            os.kill(stopped["pid"], signal.SIGCONT)
        except OSError:
            pass

    status = 0
    exit_by = None
    try:
        if o["wait_err"] is not None:
            if err_r is None:
                usage("--wait-err needs a captured stderr")
            wait_for(lambda: o["wait_err"] in err_r.buf,
                     "waiting for %r on stderr" % o["wait_err"].decode())
        if o["stop_helper"]:
            stop_helper()
        if in_ours is not None:
            msgs = list(o["msgs"])
            if o["split"] is not None and msgs:
                k = o["split"]
                first = msgs.pop(0)
                send(first[:k])
                consumed(in_ours)
                send(first[k:])
                if o["each"]:
                    wait_for(lambda: frames() >= 1, "waiting for frame 1")
                answered(0)
            for idx, m in enumerate(msgs):
                send(m)
                if o["each"]:
                    want = idx + 1 + (1 if o["split"] is not None else 0)
                    wait_for(lambda: frames() >= want, "waiting for frame %d" % want)
                answered(idx + (1 if o["split"] is not None else 0))
            want = o["frames"]
            wait_for(lambda: frames() >= want,
                     "waiting for %d frame(s) on stdout" % want)
            if not o["no_close"]:
                close_stdin()
                in_ours = None
                if o["eof_within"] is not None:
                    exit_by = wait_eof(o["eof_within"])
        try:
            proc.wait(timeout=max(0.1, exit_by - time.monotonic()) if exit_by else o["timeout"])
        except subprocess.TimeoutExpired:
            raise Timeout("waiting for the command to exit")
        rc = proc.returncode
        status = rc if rc >= 0 else 128 - rc
    except Timeout as e:
        if o["stderr_late"]:
            sys.stderr.write("client.py: (stderr is read only after the exit)\n")
        sys.stderr.write("client.py: timeout: %s; got %d frame(s)\n" % (e, frames()))
        if o["session"]:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        status = 124
    finally:
        if stopped["pid"] is not None:
            with cond:
                stopped["done"] = True
                cond.notify_all()
            cont_helper()
        if in_ours is not None:
            try:
                close_stdin()
            except OSError:
                pass
    # The readers end at EOF; a leftover grandchild holding a pipe open must
    # not hang the test.
    out_r.join(o["timeout"])
    if err_r is not None:
        if o["stderr_late"]:
            err_r.start()
        err_r.join(o["timeout"])
    with cond:
        out_bytes = out_r.buf
        err_bytes = err_r.buf if err_r is not None else b""
    if o["wire_size"]:
        with open(o["wire_size"], "w") as f:
            f.write("%d\n" % fcntl.fcntl(out_ours, fcntl.F_GETPIPE_SZ))
    for fd in {out_ours, err_ours}:
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
    if out_path:
        with open(out_path, "wb") as f:
            f.write(out_bytes)
    if err_path and not o["stderr_file"]:
        with open(err_path, "wb") as f:
            f.write(err_bytes)
    return status


if __name__ == "__main__":
    main()
