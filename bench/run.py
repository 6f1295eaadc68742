#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/run.py - what stdiogate costs, side by side with the alternatives.

Run by `make bench` (see bench/bench.mk).  Python standard library only;
the timed work is done by the C helpers in bench/bin.

Every timed item runs its variants interleaved: in each round every variant
runs once (order rotated from round to round), so slow phases of the machine
hit all variants alike.  A ratio is the median over rounds of the per-round
ratio to the baseline, with the per-round min and max beside it; an "A/A" row
(the baseline run twice under two names) shows the noise floor.  Where time
is too noisy (process start) instructions are counted with callgrind, which
is deterministic.

States of the library:
  pass-through  LD_PRELOAD=lib, no STDIOGATE_WIRE: the library is loaded and
                steps aside.
  diverting     LD_PRELOAD=lib and STDIOGATE_WIRE=<identity of the process's
                fd 1>, as the wrapper sets them (the bench sets them itself so
                that the wrapper's own shell start is not counted; rows marked
                "wrapper" run ./stdiogate for real).
  gated         diverting until the client's first message was read, then
                pass-through: what a server run by the wrapper does.
"""

import argparse
import collections
import datetime
import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

from stats import Series, fmt, med, paired, ratio_row, timing_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bench", "bin")
FIX = os.path.join(ROOT, "bench", "fixtures")
STDBUF = "/usr/libexec/coreutils/libstdbuf.so"
WRAPPER = os.path.join(ROOT, "stdiogate")
FIRST_MSG = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n'
OUR_VARS = ("LD_PRELOAD", "STDIOGATE_WIRE", "STDIOGATE_DEBUG", "STDIOGATE_DISCARD",
            "STDIOGATE_OPEN", "_STDBUF_I", "_STDBUF_O", "_STDBUF_E")


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in OUR_VARS and not k.startswith("PYENV")}
    env.update(extra)
    return env


def b(name):
    return os.path.join(BIN, name)


def rotate(items, r):
    k = r % len(items)
    out = items[k:] + items[:k]
    return out if r % 2 == 0 else out[::-1]


# ---------------------------------------------------------------- callgrind

def cg_resolve(table, val):
    m = re.match(r"\((\d+)\)(?: (.*))?$", val)
    if not m:
        return val
    if m.group(2) is not None:
        table[m.group(1)] = m.group(2)
    return table.get(m.group(1), val)


def parse_callgrind(path):
    """Self cost per (object, function), call costs, and the total (Ir)."""
    obs, fns, fls = {}, {}, {}
    self_cost = collections.Counter()
    call_cost = collections.Counter()
    call_count = collections.Counter()
    ob = fn = cob = cfn = None
    ncalls = 0
    want_call = False
    total = 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line[0] == "#":
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if want_call:
                    call_cost[((ob, fn), (cob or ob, cfn))] += cost
                    call_count[((ob, fn), (cob or ob, cfn))] += ncalls
                    want_call = False
                    cob = None
                else:
                    self_cost[(ob, fn)] += cost
                continue
            key, _, val = line.partition("=")
            if key == "ob":
                ob = os.path.basename(cg_resolve(obs, val))
            elif key == "cob":
                cob = os.path.basename(cg_resolve(obs, val))
            elif key == "fn":
                fn = cg_resolve(fns, val)
            elif key == "cfn":
                cfn = cg_resolve(fns, val)
            elif key in ("fl", "fi", "fe", "cfi", "cfl"):
                cg_resolve(fls, val)
            elif key == "calls":
                want_call = True
                ncalls = int(val.split()[0])
            elif line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
    if not total:
        total = sum(self_cost.values())
    return {"self": self_cost, "calls": call_cost, "ncalls": call_count, "total": total}


# valgrind's launcher (/usr/bin/valgrind.bin, also run again at every exec
# it follows) is a dynamic program that execs a static tool: a library
# preloaded into it with the marker diverts there and, by default, starts
# the tool under the strict filter, and the program measured then runs in
# the filter's state (no gate, no guard), not the one named.  With this the
# launcher hands the wire to the tool as it is, and the program under it
# diverts (or guards) as under the wrapper.
CALLGRIND_WIRE_ENV = {"STDIOGATE_AUTO_STRICT": "0"}


def callgrind_tool():
    """The callgrind tool the valgrind launcher would exec, as (its argv
    head, the variables it needs), or None.  A server run under `valgrind`
    with LD_PRELOAD set loads the library into the launcher itself, which
    hands the wire to the static tool it execs: that runs under the strict
    filter, and the server's guard is never on.  Run without the launcher,
    the tool takes LD_PRELOAD for the program alone."""
    vg = shutil.which("valgrind")
    if not vg:
        return None
    p = subprocess.run([vg, "-d", "--tool=callgrind", "--callgrind-out-file=/dev/null", "/bin/true"],
                       stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    m = re.search(rb"launcher launching (\S+)", p.stderr)
    if not m:
        return None
    tool = m.group(1).decode()
    return [tool, "--tool=callgrind"], ["-e", f"VALGRIND_LIB={os.path.dirname(tool)}",
                                        "-e", f"VALGRIND_LAUNCHER={vg}"]


def callgrind(argv, env, stdout_pipe=True, stdin_data=None, wire=False, tag="run"):
    """Run argv under callgrind; returns the parsed profile.  wire: put
    STDIOGATE_WIRE=<identity of the pipe on the process's fd 1> in env (and
    CALLGRIND_WIRE_ENV)."""
    out = tempfile.NamedTemporaryFile(prefix=f"cg-{tag}-", suffix=".out", dir=TMP, delete=False)
    out.close()
    r, w = os.pipe()
    env = dict(env)
    if wire:
        st = os.fstat(w)
        env["STDIOGATE_WIRE"] = f"{st.st_dev}:{st.st_ino}"
        env.update(CALLGRIND_WIRE_ENV)
    cmd = ["valgrind", "--tool=callgrind", "-q", f"--callgrind-out-file={out.name}"] + argv
    stdin = subprocess.DEVNULL
    if stdin_data is not None:
        stdin = prefilled_pipe(stdin_data)
    p = subprocess.Popen(cmd, env=env, stdin=stdin, stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    if stdin_data is not None:
        os.close(stdin)
    data = b""
    while True:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, err = p.communicate()
    if p.returncode != 0:
        raise RuntimeError(f"callgrind {argv}: exit {p.returncode}: {err.decode(errors='replace')[-400:]}")
    prof = parse_callgrind(out.name)
    prof["stdout"] = data
    prof["file"] = out.name
    return prof


def by_object(prof):
    c = collections.Counter()
    for (ob, _), v in prof["self"].items():
        c[ob] += v
    return c


def inclusive(prof, key):
    return prof["self"][key] + sum(v for (caller, _), v in prof["calls"].items() if caller == key)


# ---------------------------------------------------------------- helpers

def prefilled_pipe(data):
    """Read end of a pipe already holding data (write end closed)."""
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, max(len(data), 65536))
    except OSError:
        pass
    size = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
    if len(data) > size:
        raise RuntimeError(f"pipe holds {size} bytes, need {len(data)}")
    os.write(w, data)
    os.close(w)
    return r


def run(argv, env=None, **kw):
    return subprocess.run(argv, env=env if env is not None else clean_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def parse_kv(text):
    return {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", text)}


# ---------------------------------------------------------------- the bench

class Bench:
    def __init__(self, args):
        self.lib = os.path.abspath(args.lib)
        self.alt = os.path.abspath(args.alt_lib) if args.alt_lib else None
        self.quick = args.quick
        self.out = []         # detail sections (markdown lines)
        self.summary = []     # (item, measured, target, verdict)
        self.notes = []
        self.have_valgrind = shutil.which("valgrind") is not None
        self.have_strace = shutil.which("strace") is not None
        self.have_node = shutil.which("node") is not None
        self.python = os.path.realpath(sys.executable)
        self.wrapper = os.access(WRAPPER, os.X_OK)
        cpu = args.cpu
        if cpu == "auto":
            cpu = str(max(os.sched_getaffinity(0)))
        self.cpu = None if cpu in ("", "none") or not shutil.which("taskset") else cpu
        self.pin = ["taskset", "-c", self.cpu] if self.cpu else []
        self.load = [os.getloadavg()]
        q = self.quick
        self.p = {
            "spawn_rounds": 4 if q else 40, "spawn_batch": 5 if q else 10,
            "cg_repeat": 1 if q else 2,
            "read_rounds": 3 if q else 40, "read_bytes": (1 << 18) if q else (1 << 20),
            "msg_rounds": 3 if q else 25, "pings": 1000 if q else 10000,
            "tp_rounds": 2 if q else 40, "tp_count": 3 if q else 10, "tp_size": 8 << 20,
            "ttfa_rounds": 3 if q else 25,
        }

    # variant helpers: extra args for spawnloop/client
    def v_none(self):
        return ["-u", "LD_PRELOAD"]

    def v_stdbuf(self):
        return ["-e", f"LD_PRELOAD={STDBUF}"]

    def v_pass(self):
        return ["-e", f"LD_PRELOAD={self.lib}"]

    def v_div(self):
        return ["-e", f"LD_PRELOAD={self.lib}", "-w"]

    def v_gate_only(self):
        return ["-e", f"LD_PRELOAD={self.lib}", "-w", "-e", "STDIOGATE_GUARD=0"]

    def v_alt_pass(self):
        return ["-e", f"LD_PRELOAD={self.alt}"]

    def v_alt_div(self):
        return ["-e", f"LD_PRELOAD={self.alt}", "-w"]

    def verdict(self, ok):
        return "met" if ok else "**MISSED**"

    def ratio_item(self, label, rs, target, ok, aa=None):
        self.summary.append(ratio_row(label, rs, target, ok, aa))

    # ------------------------------------------------------------ sanity
    def sanity(self):
        """Check that the states are what they claim (level-2 diagnostics)."""
        log("sanity: states of the library")
        env = clean_env(STDIOGATE_DEBUG="2", LD_PRELOAD=self.lib)
        r, w = os.pipe()
        st = os.fstat(w)
        div = dict(env, STDIOGATE_WIRE=f"{st.st_dev}:{st.st_ino}")
        p = subprocess.run([b("trivial")], env=div, stdout=w, stderr=subprocess.PIPE)
        os.close(w)
        got = os.read(r, 4096)
        os.close(r)
        err = p.stderr.decode(errors="replace")
        if "diverting stdout" in err and b"hello" not in got:
            self.notes.append("diverting state confirmed: `trivial` with the marker wrote its line on stderr "
                              "(`diverting stdout to stderr` at STDIOGATE_DEBUG=2).")
        else:
            self.notes.append("WARNING: diverting state NOT confirmed for `trivial` "
                              f"(stdout got {got!r}, stderr {err.strip()[:200]!r}); diverting rows may "
                              "measure pass-through.")
        p = subprocess.run([b("trivial")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if b"hello" in p.stdout and "diverting" not in p.stderr.decode(errors="replace"):
            self.notes.append("pass-through state confirmed: `trivial` without the marker wrote on stdout.")
        else:
            self.notes.append("WARNING: pass-through state not as expected for `trivial`: "
                              f"{p.stderr.decode(errors='replace').strip()[:200]!r}")
        p = run([b("client"), "-E", "-n", "3", "-e", "STDIOGATE_DEBUG=2"] + self.v_div()
                + ["--", b("echo_server")])
        err = p.stderr.decode(errors="replace")
        m = re.search(r"gate opened by \S+[^\n]*", err)
        if p.returncode == 0 and m:
            self.notes.append(f"gated state confirmed: echo_server said `{m.group(0).strip()}`.")
        else:
            self.notes.append(f"WARNING: echo_server gated run: exit {p.returncode}, no `gate opened` line "
                              f"({err.strip()[:200]!r}).")

    # ------------------------------------------------------------ per process
    def per_process(self):
        progs = [("/bin/true", ["/bin/true"]), ("trivial (C, puts)", [b("trivial")])]
        variants = [("no preload", self.v_none), ("libstdbuf.so", self.v_stdbuf),
                    ("ours, pass-through", self.v_pass), ("ours, diverting", self.v_div)]
        if self.alt:
            variants += [("alt, pass-through", self.v_alt_pass), ("alt, diverting", self.v_alt_div)]
        self.out += ["## Per process: loading the library", ""]
        # instructions
        self.cg_profiles = {}
        if self.have_valgrind:
            log("per process: callgrind")
            lines = ["#### Instructions per process (callgrind, whole process from the first "
                     "instruction of ld.so)", "",
                     "| program | variant | instructions | added vs no preload | added / libstdbuf's added |",
                     "| --- | --- | ---: | ---: | ---: |"]
            for pname, argv in progs:
                irs = {}
                for vname, vf in variants:
                    env = clean_env()
                    vargs = vf()
                    wire = "-w" in vargs
                    if "-e" in vargs:
                        k, _, v = vargs[vargs.index("-e") + 1].partition("=")
                        env[k] = v
                    runs = [callgrind(argv, env, wire=wire, tag="proc") for _ in range(self.p["cg_repeat"])]
                    irs[vname] = [pr["total"] for pr in runs]
                    self.cg_profiles[(pname, vname)] = runs[0]
                base = med(irs["no preload"])
                added_sb = med(irs["libstdbuf.so"]) - base
                for vname, _ in variants:
                    ir = med(irs[vname])
                    spread = ""
                    if max(irs[vname]) != min(irs[vname]):
                        spread = f" (±{(max(irs[vname]) - min(irs[vname])) // 2:,})"
                    added = ir - base
                    rel = "-" if vname == "no preload" else (
                        "1 (ref)" if vname == "libstdbuf.so" else f"{added / added_sb:.2f}")
                    lines.append(f"| {pname} | {vname} | {ir:,.0f}{spread} | "
                                 f"{'' if vname == 'no preload' else f'{added:+,.0f}'} | {rel} |")
                    if vname == "ours, pass-through":
                        ratio = added / added_sb
                        self.summary.append((f"per process, {pname}: instructions added, pass-through "
                                             "/ libstdbuf's", f"{ratio:.2f}× ({added:,.0f} vs {added_sb:,.0f})",
                                             "≤ 1.15× (#35)", self.verdict(ratio <= 1.15)))
                    if vname == "alt, pass-through":
                        self.summary.append((f"per process, {pname}: instructions added, ALT pass-through "
                                             "/ libstdbuf's", f"{added / added_sb:.2f}× ({added:,.0f})",
                                             "≤ 1.15× (#35)", self.verdict(added / added_sb <= 1.15)))
                    if vname == "ours, diverting":
                        self.summary.append((f"per process, {pname}: instructions added, diverting "
                                             "/ libstdbuf's", f"{added / added_sb:.2f}× ({added:,.0f})",
                                             "(report)", ""))
            self.out += lines + [""]
        else:
            self.notes.append("valgrind not installed: no instruction counts (apt-get install valgrind).")
        # time
        log("per process: wall time, interleaved")
        for pname, argv in progs:
            series = [Series(v) for v, _ in variants]
            for r in range(self.p["spawn_rounds"]):
                for i in rotate(list(range(len(variants))), r):
                    p = run(self.pin + [b("spawnloop"), "-n", str(self.p["spawn_batch"])] + variants[i][1]()
                            + ["--"] + argv)
                    ts = [int(x) / 1000 for x in p.stdout.split()]
                    series[i].values.append(med(ts) if p.returncode == 0 and ts else None)
            self.out += timing_table(f"Start-to-exit time, {pname} (µs; each value the median of a batch "
                                     f"of {self.p['spawn_batch']} starts; {self.p['spawn_rounds']} rounds)",
                                     "µs", series, series[0], what="time ratio")

    def explain_process(self):
        """Where the added instructions go (objects and functions)."""
        if not self.cg_profiles:
            return
        libname = os.path.basename(self.lib)
        lines = ["## Where the per-process instructions go", "",
                 f"Self instructions per object, added against no preload (program: trivial):", "",
                 "| object | libstdbuf.so | ours, pass-through | ours, diverting |",
                 "| --- | ---: | ---: | ---: |"]
        pn = "trivial (C, puts)"
        base = by_object(self.cg_profiles[(pn, "no preload")])
        vs = ["libstdbuf.so", "ours, pass-through", "ours, diverting"]
        objs = [by_object(self.cg_profiles[(pn, v)]) for v in vs]
        keys = sorted(set(base) | set().union(*objs), key=lambda k: -max(abs(o[k] - base[k]) for o in objs))
        for k in keys:
            ds = [o[k] - base[k] for o in objs]
            if max(abs(d) for d in ds) < 50:
                continue
            lines.append(f"| {k} | " + " | ".join(f"{d:+,}" for d in ds) + " |")
        lines.append("")
        for v in ("ours, pass-through", "ours, diverting"):
            prof = self.cg_profiles[(pn, v)]
            bprof = self.cg_profiles[(pn, "no preload")]
            # functions of ours, inclusive
            fns = [k for k in prof["self"] if k[0] == libname]
            fns += [k for (caller, _) in prof["calls"] for k in [caller] if k[0] == libname and k not in fns]
            rows = sorted(((inclusive(prof, k), prof["self"][k], k[1]) for k in set(fns)), reverse=True)[:12]
            lines += [f"Functions of {libname} ({v}), inclusive and self instructions:", "",
                      "| function | inclusive | self |", "| --- | ---: | ---: |"]
            lines += [f"| `{fn}` | {inc:,} | {sf:,} |" for inc, sf, fn in rows]
            lines.append("")
            out_calls = collections.Counter()
            counts = collections.Counter()
            for (caller, callee), cost in prof["calls"].items():
                if caller[0] == libname and callee[0] != libname:
                    out_calls[f"{callee[1]} ({callee[0]})"] += cost
                    counts[f"{callee[1]} ({callee[0]})"] += prof["ncalls"][(caller, callee)]
            if out_calls:
                lines += [f"Calls from {libname} into other objects ({v}), inclusive:", "",
                          "| callee | calls | instructions | per call |", "| --- | ---: | ---: | ---: |"]
                lines += [f"| `{k}` | {counts[k]} | {c:,} | {c // max(counts[k], 1):,} |"
                          for k, c in out_calls.most_common(12)]
                lines.append("")
            # top functions anywhere by added self cost
            diff = collections.Counter()
            for k in set(prof["self"]) | set(bprof["self"]):
                d = prof["self"][k] - bprof["self"][k]
                if d:
                    diff[k] = d
            lines += [f"Functions with the most added self instructions, {v} vs no preload:", "",
                      "| function (object) | added |", "| --- | ---: |"]
            lines += [f"| `{k[1]}` ({k[0]}) | {d:+,} |" for k, d in
                      sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:12]]
            lines.append("")
        # the same for libstdbuf, for reference
        prof = self.cg_profiles[(pn, "libstdbuf.so")]
        bprof = self.cg_profiles[(pn, "no preload")]
        diff = collections.Counter()
        for k in set(prof["self"]) | set(bprof["self"]):
            d = prof["self"][k] - bprof["self"][k]
            if d:
                diff[k] = d
        lines += ["Functions with the most added self instructions, libstdbuf.so vs no preload:", "",
                  "| function (object) | added |", "| --- | ---: |"]
        lines += [f"| `{k[1]}` ({k[0]}) | {d:+,} |" for k, d in
                  sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:8]]
        lines.append("")
        # static facts about the two objects
        lines += ["Shape of the two objects:", "", "| | libstdbuf.so | ours |", "| --- | ---: | ---: |"]
        facts = [self.elf_facts(STDBUF), self.elf_facts(self.lib)]
        for key in facts[0]:
            lines.append(f"| {key} | {facts[0][key]} | {facts[1][key]} |")
        lines.append("")
        self.out += lines

    def elf_facts(self, path):
        f = collections.OrderedDict()
        f["file size (bytes)"] = os.path.getsize(path)
        try:
            nm = run(["nm", "-D", "--defined-only", path]).stdout.decode().split("\n")
            f["exported functions"] = sum(1 for l in nm if re.search(r" [TtWi] ", l))
            und = run(["nm", "-D", "--undefined-only", path]).stdout.decode().split()
            f["imported symbols"] = sum(1 for x in und if x != "U" and x != "w")
            rel = run(["readelf", "-rW", path]).stdout.decode()
            f["dynamic relocations"] = sum(1 for l in rel.split("\n") if re.match(r"^[0-9a-f]{8,} ", l))
            dyn = run(["readelf", "-dW", path]).stdout.decode()
            f["NEEDED"] = ", ".join(re.findall(r"Shared library: \[([^\]]+)\]", dyn)) or "-"
            f[".init_array size (bytes)"] = "".join(
                re.findall(r"\(INIT_ARRAYSZ\)\s+(\d+)", dyn)) or "-"
        except (OSError, FileNotFoundError):
            pass
        return f

    # ------------------------------------------------------------ per read
    def per_read(self):
        self.out += ["## Per read after the gate opened", ""]
        nbytes = self.p["read_bytes"]
        line = b"x" * 31 + b"\n"
        data = FIRST_MSG + line * ((nbytes - len(FIRST_MSG)) // len(line))
        variants = [("no preload", self.v_none, False), ("no preload (A/A)", self.v_none, False),
                    ("ours, pass-through", self.v_pass, False),
                    ("ours, gated (opened by the first message)", self.v_div, True)]
        if self.alt:
            variants += [("alt, pass-through", self.v_alt_pass, False), ("alt, gated", self.v_alt_div, True)]
        for mode, margs, unit in (("read(2) of 32 bytes", ["-s", "32"], "ns/read"),
                                  ("getline(3), 32-byte lines", ["-g"], "ns/line"),
                                  ("getc(3), one byte", ["-c"], "ns/byte")):
            log(f"per read: {mode}")
            series = [Series(v[0]) for v in variants]
            means = [Series(v[0]) for v in variants]
            for r in range(self.p["read_rounds"]):
                for i in rotate(list(range(len(variants))), r):
                    vname, vf, gated = variants[i]
                    best, mean = self.reader_once(vf(), margs, data, gated)
                    series[i].values.append(best)
                    means[i].values.append(mean)
            ncalls = (len(data) - len(FIRST_MSG)) // (1 if "-c" in margs else 32)
            self.out += timing_table(f"{mode}: time per call in the fastest chunk of 512 calls, "
                                     f"{ncalls} calls per run from a pipe", unit, series, series[0],
                                     what="time ratio")
            self.out += timing_table(f"{mode}: time per call over the whole run (every interruption "
                                     "included)", unit, means, means[0], what="time ratio")
            g = paired(series[3], series[0])
            p = paired(series[2], series[0])
            aa = paired(series[1], series[0])
            is_read = mode.startswith("read")
            le = (lambda x: x <= 1.01) if is_read else None
            self.ratio_item(f"per read, {mode}: gated / no preload (time per call, best chunk)", g,
                            "≤ 1.01" if is_read else "(report; stdio, no syscall)", le, aa)
            self.ratio_item(f"per read, {mode}: pass-through / no preload (time per call, best chunk)", p,
                            "≤ 1.01" if is_read else "(report)", le)
            if self.alt:
                self.ratio_item(f"per read, {mode}: ALT gated / no preload (time per call, best chunk)",
                                paired(series[5], series[0]), "≤ 1.01" if is_read else "(report)", le)
        if self.have_valgrind:
            self.read_instructions(line)
        if self.have_strace:
            self.read_syscalls(data)
        else:
            self.notes.append("strace not installed: no syscall counts.")

    def reader_once(self, vargs, margs, data, gated):
        env = clean_env()
        r, w = os.pipe()
        if "-e" in vargs:
            k, _, v = vargs[vargs.index("-e") + 1].partition("=")
            env[k] = v
        if "-w" in vargs:
            st = os.fstat(w)
            env["STDIOGATE_WIRE"] = f"{st.st_dev}:{st.st_ino}"
        stdin = prefilled_pipe(data)
        p = subprocess.run(self.pin + [b("reader")] + margs + [str(len(FIRST_MSG))], env=env, stdin=stdin,
                           stdout=w, stderr=subprocess.PIPE)
        os.close(stdin)
        os.close(w)
        out = os.read(r, 4096).decode()
        os.close(r)
        try:
            kv = json.loads(out)["params"]
        except (ValueError, KeyError, TypeError):
            kv = {}
        if p.returncode != 0 or "calls" not in kv:
            if gated and '"method":"reader"' in p.stderr.decode(errors="replace"):
                self.notes.append("WARNING: reader's result went to stderr in the gated state: "
                                  "the gate did not open.")
            return None, None
        return kv["best_ps"] / 1000, kv["ns"] / max(kv["calls"], 1)

    def read_instructions(self, line):
        """Instructions added per call: slope between two input sizes."""
        log("per read: callgrind slopes")
        sizes = [1 << 16, 1 << 18]
        libname = os.path.basename(self.lib)
        lines = ["#### Instructions per call (callgrind; slope between runs on "
                 f"{sizes[0] >> 10} KiB and {sizes[1] >> 10} KiB of input, so load and constructor cancel "
                 "out; the loop's own chunk timing is included in every row)", "",
                 "| loop | variant | instructions per call | added per call | "
                 f"self instructions per call in {libname} |", "| --- | --- | ---: | ---: | --- |"]
        for mode, margs in (("read(2) 32 B", ["-s", "32"]), ("getline(3)", ["-g"]), ("getc(3)", ["-c"])):
            slopes, where = {}, {}
            vs = [("no preload", {}), ("ours, pass-through", {"LD_PRELOAD": self.lib}),
                  ("ours, gated", {"LD_PRELOAD": self.lib, "wire": 1})]
            if self.alt:
                vs += [("alt, pass-through", {"LD_PRELOAD": self.alt}),
                       ("alt, gated", {"LD_PRELOAD": self.alt, "wire": 1})]
            for vname, var in vs:
                irs, calls, profs = [], [], []
                for n in sizes:
                    data = FIRST_MSG + line * ((n - len(FIRST_MSG)) // len(line))
                    env = clean_env(**{k: v for k, v in var.items() if k != "wire"})
                    pr = callgrind([b("reader")] + margs + [str(len(FIRST_MSG))], env,
                                   stdin_data=data, wire="wire" in var, tag="read")
                    kv = parse_kv(pr["stdout"].decode())
                    irs.append(pr["total"])
                    calls.append(kv.get("calls", 0))
                    profs.append(pr)
                dc = max(calls[1] - calls[0], 1)
                slopes[vname] = (irs[1] - irs[0]) / dc
                per_fn = []
                for k in set(profs[1]["self"]):
                    if k[0] in (libname, os.path.basename(self.alt or self.lib)):
                        d = (profs[1]["self"][k] - profs[0]["self"].get(k, 0)) / dc
                        if d >= 0.5:
                            per_fn.append(f"`{k[1]}` {d:.1f}")
                where[vname] = ", ".join(sorted(per_fn))
            for vname, s in slopes.items():
                add = "" if vname == "no preload" else f"{s - slopes['no preload']:+.1f}"
                lines.append(f"| {mode} | {vname} | {s:.1f} | {add} | {where[vname]} |")
        self.out += lines + [""]

    def read_syscalls(self, data):
        """strace -c -f of the read loop.  Any preload costs one read(2) of its
        ELF header in ld.so, so the loop's reads are compared with
        libstdbuf's run (same mechanism) as well as with no preload."""
        log("per read: strace -c -f")
        rows = {}
        variants = (("no preload", {}), ("libstdbuf.so", {"LD_PRELOAD": STDBUF}),
                    ("ours, pass-through", {"LD_PRELOAD": self.lib}),
                    ("ours, gated", {"LD_PRELOAD": self.lib, "wire": 1}))
        modes = (("read(2) 32 B", ["-s", "32"]), ("getline(3)", ["-g"]))
        for vname, var in variants:
            for mode, margs in modes:
                rows[(mode, vname)] = self.strace_counts(var, margs, data)
        lines = ["#### System calls (strace -c -f), whole process", "",
                 "| loop | variant | read | all syscalls | differences vs no preload | vs libstdbuf.so |",
                 "| --- | --- | ---: | ---: | --- | --- |"]

        def diff(c, base):
            return ", ".join(f"{k} {c[k] - base[k]:+d}" for k in sorted(set(c) | set(base))
                             if c[k] != base[k]) or "none"
        for mode, _ in modes:
            base = rows[(mode, "no preload")]
            sb = rows[(mode, "libstdbuf.so")]
            for vname, _ in variants:
                c = rows[(mode, vname)]
                lines.append(f"| {mode} | {vname} | {c['read']} | {sum(c.values())} | "
                             f"{diff(c, base) if vname != 'no preload' else ''} | "
                             f"{diff(c, sb) if vname.startswith('ours') else ''} |")
                if vname.startswith("ours"):
                    self.summary.append((f"per read, {mode}: read(2) calls, {vname} vs libstdbuf.so "
                                         "(no preload)", f"{c['read']} vs {sb['read']} ({base['read']})",
                                         "equal", self.verdict(c["read"] == sb["read"])))
        self.out += lines + ["", "(Every preload adds one read(2): ld.so reading the library's ELF header.)", ""]

    def strace_counts(self, var, margs, data):
        f = os.path.join(TMP, f"strace-{time.monotonic_ns()}.txt")
        env = clean_env(**{k: v for k, v in var.items() if k != "wire"})
        r, w = os.pipe()
        if "wire" in var:
            st = os.fstat(w)
            env["STDIOGATE_WIRE"] = f"{st.st_dev}:{st.st_ino}"
        stdin = prefilled_pipe(data)
        # strace -E puts the variables in the traced program's environment only
        cmd = ["strace", "-f", "-c", "-o", f]
        for k in ("LD_PRELOAD", "STDIOGATE_WIRE"):
            if k in env:
                cmd += ["-E", f"{k}={env.pop(k)}"]
        cmd += [b("reader")] + margs + [str(len(FIRST_MSG))]
        subprocess.run(cmd, env=env, stdin=stdin, stdout=w, stderr=subprocess.DEVNULL)
        os.close(stdin)
        os.close(w)
        os.read(r, 4096)
        os.close(r)
        counts = collections.Counter()
        with open(f) as fh:
            for l in fh:
                m = re.match(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", l)
                if m and m.group(2) != "total":
                    counts[m.group(2)] = int(m.group(1))
        return counts

    # ------------------------------------------------------------ per message
    def per_message(self):
        n = self.p["pings"]
        self.out += ["## Per message: sequential pings to a C JSON-RPC echo server", ""]
        srv = b("echo_server")
        variants = [
            ("direct", self.v_none() + ["--", srv]),
            ("direct (A/A)", self.v_none() + ["--", srv]),
            ("ours, pass-through", self.v_pass() + ["--", srv]),
            ("ours, gated", self.v_div() + ["--", srv]),
            ("ours, gate only (no guard)", self.v_gate_only() + ["--", srv]),
        ]
        if self.wrapper:
            variants.append(("./stdiogate wrapper", self.v_none() + ["--", WRAPPER, srv]))
        if self.alt:
            variants.append(("alt, gated", self.v_alt_div() + ["--", srv]))
        variants.append(("proxy: sh -c 'SERVER | grep --line-buffered \"^{\"'",
                         self.v_none() + ["--", "sh", "-c", f"{srv} | grep --line-buffered '^{{'"]))
        if self.have_node:
            variants.append(("proxy: node line filter",
                             self.v_none() + ["--", "node", os.path.join(FIX, "linefilter.js"), srv]))
        variants += [("direct, read(2) server", self.v_none() + ["--", srv, "-r"]),
                     ("ours, gated, read(2) server", self.v_div() + ["--", srv, "-r"])]
        log(f"per message: {len(variants)} variants x {self.p['msg_rounds']} rounds x {n} pings")
        series = self.interleave_client(variants, ["-n", str(n)], self.p["msg_rounds"],
                                        lambda kv: kv["median_ns"] / 1000)
        self.out += timing_table(f"Round-trip time, median of {n} pings per run (µs); "
                                 f"{self.p['msg_rounds']} rounds", "µs", series, series[0],
                                 what="time ratio")
        cpu = self.cpu_series
        self.out += timing_table(f"CPU time of the server side per run ({n} pings, start-up included; "
                                 "user+system from wait4, less disturbed by other load than wall time)",
                                 "ms", cpu, cpu[0], what="CPU ratio")
        base = series[0]
        aa = paired(series[1], base)
        g = paired(series[3], base)
        self.ratio_item("per message (getline server): gated (the guard on) / direct round trip", g, "≤ 1.05",
                        lambda x: x <= 1.05, aa)
        self.ratio_item("per message (getline server): gate only (no guard) / direct round trip",
                        paired(series[4], base), "(report)", None)
        self.ratio_item("per message (getline server): gated / direct, server CPU time", paired(cpu[3], cpu[0]),
                        "(report)", None, paired(cpu[1], cpu[0]))
        rs = paired(series[-1], series[-2])
        self.ratio_item("per message (read(2) server): gated (the guard on) / direct round trip", rs, "≤ 1.05",
                        lambda x: x <= 1.05)
        for s in series:
            if s.name.startswith("proxy"):
                pr = paired(s, base)
                self.summary.append((f"per message: {s.name.split(':')[1].strip()} / direct",
                                     f"{med(pr):.3f}", "(alternative)", ""))
        if self.have_valgrind:
            self.message_instructions()

    def message_instructions(self):
        log("per message: callgrind slope")
        sizes = (200, 1200) if self.quick else (1000, 3000)
        libname = os.path.basename(self.lib)
        lines = [f"#### Server instructions per message and once per process (callgrind on the server; "
                 f"slope and intercept between {sizes[0]} and {sizes[1]} pings)", "",
                 "| server | variant | per message | added per message | once per process | added once |",
                 "| --- | --- | ---: | ---: | ---: | ---: |"]
        gated_prof = None
        tool = callgrind_tool()
        if not tool:
            self.out += lines + ["(valgrind's launcher did not say which tool it runs: no figures)", ""]
            return
        head, tenv = tool
        for sname, sargs in (("getline", []), ("read(2)", ["-r"])):
            slopes, fixed = {}, {}
            gated = self.v_div() + [a for k, v in CALLGRIND_WIRE_ENV.items() for a in ("-e", f"{k}={v}")]
            for vname, vargs in (("direct", self.v_none()), ("ours, gated", gated)):
                irs = []
                for n in sizes:
                    out = os.path.join(TMP, f"cg-msg-{sname}-{n}-{len(vargs)}.out")
                    p = run([b("client"), "-n", str(n)] + vargs + tenv
                            + ["--"] + head + ["-q", f"--callgrind-out-file={out}", b("echo_server")] + sargs)
                    if p.returncode != 0:
                        raise RuntimeError(p.stderr.decode())
                    prof = parse_callgrind(out)
                    irs.append(prof["total"])
                    if sname == "getline" and vname == "ours, gated" and n == sizes[0]:
                        gated_prof = prof
                slopes[vname] = (irs[1] - irs[0]) / (sizes[1] - sizes[0])
                fixed[vname] = irs[0] - slopes[vname] * sizes[0]
            base = "direct"
            for vname, s in slopes.items():
                d = vname == base
                lines.append(f"| {sname} | {vname} | {s:.1f} | {'' if d else f'{s - slopes[base]:+.1f}'} | "
                             f"{fixed[vname]:,.0f} | {'' if d else f'{fixed[vname] - fixed[base]:+,.0f}'} |")
        lines.append("")
        if gated_prof:
            fns = set(k for k in gated_prof["self"] if k[0] == libname)
            fns |= set(c for (c, _) in gated_prof["calls"] if c[0] == libname)
            rows = sorted(((inclusive(gated_prof, k), gated_prof["self"][k], k[1]) for k in fns), reverse=True)[:10]
            lines += [f"Functions of {libname} in the gated getline server ({sizes[0]} pings), inclusive and "
                      "self instructions (the constructor and the opening of the gate are once per process):", "",
                      "| function | inclusive | self |", "| --- | ---: | ---: |"]
            lines += [f"| `{fn}` | {inc:,} | {sf:,} |" for inc, sf, fn in rows]
        self.out += lines + [""]

    def interleave_client(self, variants, cargs, rounds, value, pin=True, also=None):
        series = [Series(v[0]) for v in variants]
        self.cpu_series = [Series(v[0]) for v in variants]
        for r in range(rounds):
            for i in rotate(list(range(len(variants))), r):
                p = run((self.pin if pin else []) + [b("client")] + cargs + variants[i][1])
                kv = parse_kv(p.stdout.decode())
                self.cpu_series[i].values.append(kv.get("srv_cpu_ns", 0) / 1e6 if p.returncode == 0 and kv else None)
                if p.returncode != 0 or not kv:
                    series[i].values.append(None)
                    msg = p.stderr.decode(errors="replace").strip()[:200]
                    self.notes.append(f"WARNING: {variants[i][0]} failed (exit {p.returncode}): {msg}")
                    continue
                if kv.get("stray"):
                    self.notes.append(f"WARNING: {variants[i][0]}: {kv['stray']} stray lines on stdout")
                series[i].values.append(value(kv))
                if also:
                    also(i, kv)
        return series

    # ------------------------------------------------------------ throughput
    def throughput(self):
        cnt, size = self.p["tp_count"], self.p["tp_size"]
        srv = [b("echo_server"), "-b", str(size)]
        self.out += ["## Throughput: a result of 8 MiB, requested " + str(cnt) + " times", ""]
        variants = [
            ("direct", self.v_none() + ["--"] + srv),
            ("direct (A/A)", self.v_none() + ["--"] + srv),
            ("ours, gated", self.v_div() + ["--"] + srv),
            ("ours, pass-through", self.v_pass() + ["--"] + srv),
            ("ours, gate only (no guard)", self.v_gate_only() + ["--"] + srv),
            ("proxy: grep --line-buffered", self.v_none() + ["--", "sh", "-c",
                                                             " ".join(srv) + " | grep --line-buffered '^{'"]),
        ]
        if self.have_node:
            variants.append(("proxy: node line filter",
                             self.v_none() + ["--", "node", os.path.join(FIX, "linefilter.js")] + srv))
        if self.alt:
            variants.append(("alt, gated", self.v_alt_div() + ["--"] + srv))
        log(f"throughput: {len(variants)} variants x {self.p['tp_rounds']} rounds")
        whole = {}

        def value(kv, name=None):
            return (kv["bytes"] / cnt) / (1 << 20) / (kv["min_ns"] / 1e9)
        series = self.interleave_client(variants, ["-n", str(cnt)], self.p["tp_rounds"], value,
                                        also=lambda i, kv: whole.setdefault(i, []).append(
                                            kv["bytes"] / (1 << 20) / (kv["total_ns"] / 1e9)))
        self.out += timing_table(f"MiB/s of the fastest of the {cnt} answers of {size >> 20} MiB in a run "
                                 f"(the least disturbed one); {self.p['tp_rounds']} rounds", "MiB/s",
                                 series, series[0], what="throughput ratio")
        wseries = []
        for i, s in enumerate(series):
            w = Series(s.name)
            w.values = whole.get(i, [])
            wseries.append(w)
        self.out += timing_table(f"MiB/s over all {cnt} answers of a run (every interruption included)",
                                 "MiB/s", wseries, wseries[0], what="throughput ratio")
        cpu = self.cpu_series
        self.out += timing_table(f"CPU time of the server side per run ({cnt} answers, start-up included; "
                                 "user+system from wait4)", "ms", cpu, cpu[0], what="CPU ratio")
        g = paired(series[2], series[0])
        aa = paired(series[1], series[0])
        self.ratio_item("throughput: gated (the guard on) / direct (fastest answer of each run)", g, "≥ 0.95",
                        lambda x: x >= 0.95, aa)
        g = paired(wseries[2], wseries[0])
        aa = paired(wseries[1], wseries[0])
        self.ratio_item("throughput: gated (the guard on) / direct (whole runs)", g, "≥ 0.95",
                        lambda x: x >= 0.95, aa)
        self.ratio_item("throughput: direct / gated server CPU time per run", paired(cpu[2], cpu[0], invert=True),
                        "(report)", None, paired(cpu[1], cpu[0], invert=True))
        self.ratio_item("throughput: gate only (no guard) / direct (whole runs)", paired(wseries[4], wseries[0]),
                        "(report)", None)
        if self.have_strace:
            self.throughput_syscalls(srv, cnt)

    def throughput_syscalls(self, srv, cnt):
        """The server's system calls over a throughput run, direct vs gated."""
        log("throughput: strace -c -f of the server")
        rows = {}
        for vname, cargs, extra in (("direct", [], []),
                                    ("ours, gated", ["-w"], ["-E", f"LD_PRELOAD={self.lib}"])):
            f = os.path.join(TMP, f"strace-tp-{len(rows)}.txt")
            p = run([b("client"), "-n", str(cnt)] + cargs + ["-u", "LD_PRELOAD", "--", "strace", "-f", "-c",
                                                               "-o", f] + extra + srv)
            counts = collections.Counter()
            if p.returncode == 0:
                with open(f) as fh:
                    for l in fh:
                        m = re.match(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", l)
                        if m and m.group(2) != "total":
                            counts[m.group(2)] = int(m.group(1))
            rows[vname] = counts
        d, g = rows["direct"], rows["ours, gated"]
        diff = ", ".join(f"{k} {g[k] - d[k]:+d}" for k in sorted(set(d) | set(g)) if g[k] != d[k]) or "none"
        self.out += [f"Server system calls over one run (strace -c -f): write {d['write']} direct, "
                     f"{g['write']} gated; read {d['read']} direct, {g['read']} gated; all {sum(d.values())} "
                     f"direct, {sum(g.values())} gated (gated − direct: {diff}).", ""]

    # ------------------------------------------------------------ time to first answer
    def ttfa(self):
        self.out += ["## Time to first answer: spawn to initialize response", ""]
        fixtures = [("Python", [self.python, os.path.join(FIX, "server.py")])]
        if self.have_node:
            fixtures.insert(0, ("Node", ["node", os.path.join(FIX, "server.js")]))
        fixtures.append(("C (echo_server)", [b("echo_server")]))
        for fname, argv in fixtures:
            variants = [("direct", self.v_none() + ["--"] + argv),
                        ("ours, gated", self.v_div() + ["--"] + argv)]
            if self.wrapper:
                variants.append(("./stdiogate wrapper", self.v_none() + ["--", WRAPPER] + argv))
            log(f"time to first answer: {fname}")
            series = self.interleave_client(variants, ["-n", "0"], self.p["ttfa_rounds"],
                                            lambda kv: kv["first_ns"] / 1e6)
            if fname.startswith("C"):
                self.wrapper_programs(argv)
            self.out += timing_table(f"{fname}: `{' '.join(os.path.basename(a) for a in argv)}` (ms); "
                                     f"{self.p['ttfa_rounds']} rounds", "ms", series, series[0],
                                     what="time ratio")
            g = paired(series[1], series[0])
            def added(s):
                d = [v - w for v, w in zip(s.values, series[0].values) if v is not None and w is not None]
                return f" (+{med(d):.2f} ms)" if d and med(d) >= 0 else (f" ({med(d):.2f} ms)" if d else "")
            self.ratio_item(f"time to first answer, {fname}: gated / direct{added(series[1])}", g, None, None)
            if self.wrapper:
                self.ratio_item(f"time to first answer, {fname}: ./stdiogate wrapper / direct"
                                f"{added(series[2])}", paired(series[2], series[0]), None, None)

    def wrapper_programs(self, argv):
        """What the wrapper runs before it execs COMMAND (strace -f execve)."""
        if not (self.wrapper and self.have_strace):
            return
        f = os.path.join(TMP, "wrapper-exec.txt")
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve", "-o", f, WRAPPER] + argv,
                       env=clean_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        progs = collections.Counter()
        with open(f) as fh:
            for l in fh:
                m = re.search(r'execve\("([^"]+)"', l)
                if m and "= 0" in l:
                    progs[os.path.basename(m.group(1))] += 1
        total = sum(progs.values())
        listing = ", ".join(f"{k} ×{v}" for k, v in progs.most_common())
        self.out += [f"The wrapper ran {total} programs for `stdiogate {os.path.basename(argv[0])}` "
                     f"(strace -f -e execve; the wrapper and COMMAND included): {listing}.", ""]

    # ------------------------------------------------------------ report
    def header(self, elapsed):
        def cmd(argv):
            try:
                return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      cwd=ROOT).stdout.decode().strip().split("\n")[0]
            except OSError:
                return "-"
        cpu = "-"
        with open("/proc/cpuinfo") as f:
            for l in f:
                if l.startswith("model name"):
                    cpu = l.split(":", 1)[1].strip()
                    break
        osr = "-"
        if os.path.exists("/etc/os-release"):
            with open("/etc/os-release") as f:
                m = re.search(r'PRETTY_NAME="([^"]+)"', f.read())
                osr = m.group(1) if m else "-"
        with open(self.lib, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:12]
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20
        head = cmd(["git", "log", "-1", "--format=%h %cd", "--date=iso"])
        shim = cmd(["git", "log", "-1", "--format=%h %s", "--", "shim.c", "lib", "protocol/detect.h", "common/quiet.h"])
        dirty = cmd(["git", "status", "--porcelain", "--", "shim.c", "lib", "protocol/detect.h", "common/quiet.h", "Makefile"])
        return [
            "# stdiogate benchmarks", "",
            f"- command: `make bench{' BENCH_QUICK=1' if self.quick else ''}"
            f"{'' if self.lib == os.path.join(ROOT, 'libstdiogate.so') else f' BENCH_LIB={self.lib}'}"
            f"{f' BENCH_ALT_LIB={self.alt}' if self.alt else ''}`"
            f" ({elapsed:.0f} s{'; QUICK MODE: smoke test, figures not meaningful' if self.quick else ''})",
            f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
            f"- machine: {cpu}, {os.cpu_count()} CPUs, {mem} MiB, {osr}, Linux {platform.release()}, "
            f"glibc {os.confstr('CS_GNU_LIBC_VERSION').split()[-1]}",
            f"- tools: {cmd(['valgrind', '--version'])}, {cmd(['strace', '-V'])}, node "
            f"{cmd(['node', '--version'])}, Python {platform.python_version()} ({self.python})",
            f"- tree: {head}; library (shim.c, lib/, protocol/detect.h, common/quiet.h) last commit: {shim or '-'}"
            f"{'; uncommitted changes: ' + dirty.replace(chr(10), ' ') if dirty else ''}",
            f"- library: {self.lib} ({os.path.getsize(self.lib):,} bytes, sha256 {digest}…)"
            + (f"; alt: {self.alt}" if self.alt else ""),
            f"- timed runs pinned to CPU {self.cpu} (taskset; BENCH_CPU=none to let them float)"
            if self.cpu else "- timed runs not pinned",
            "- load average (1 min) at start, end: " + ", ".join(f"{l[0]:.2f}" for l in self.load)
            + (" — the machine was busy: timings are noisier than usual" if max(l[0] for l in self.load) > 1.5
               else ""),
            "",
        ]

    def report(self, elapsed):
        self.load.append(os.getloadavg())
        lines = self.header(elapsed)
        lines += ["## Targets", "", "| item | measured | target | verdict |", "| --- | --- | --- | --- |"]
        lines += [f"| {a} | {m} | {t} | {v} |".replace(" | grep", " \\| grep") for a, m, t, v in self.summary]
        lines.append("")
        lines += ["Ratios: median over rounds of the per-round ratio (variants interleaved, order rotated "
                  "every round); `A/A` is the baseline run twice under two names, i.e. the noise floor. "
                  "Gated: LD_PRELOAD and STDIOGATE_WIRE set by the bench for the server's stdout pipe, "
                  "as the wrapper sets them; the gate opens at the end of the first message.", ""]
        if self.notes:
            lines += ["## Notes", ""] + [f"- {n}" for n in dict.fromkeys(self.notes)] + [""]
        lines += self.out
        return "\n".join(lines) + "\n"


def main():
    global TMP
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", default=os.path.join(ROOT, "libstdiogate.so"))
    ap.add_argument("--alt-lib", default=os.environ.get("BENCH_ALT_LIB", ""),
                    help="a second build of the library, measured beside the first (rows 'alt')")
    ap.add_argument("--quick", action="store_true", help="smoke run, figures not meaningful")
    ap.add_argument("--cpu", default=os.environ.get("BENCH_CPU", "auto"),
                    help="CPU to pin timed runs to (auto: the last one; none: no pinning)")
    ap.add_argument("--only", default="", help="comma list: process,read,message,throughput,ttfa")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "latest.md"))
    args = ap.parse_args()
    if not os.path.exists(args.lib):
        sys.exit(f"bench: library {args.lib} not found (make, or BENCH_LIB=...)")
    for prog in ("spawnloop", "reader", "client", "echo_server", "trivial"):
        if not os.access(b(prog), os.X_OK):
            sys.exit(f"bench: {b(prog)} missing (make bench-bins)")
    for lib in filter(None, (args.lib, args.alt_lib)):
        if not os.path.isfile(lib):
            sys.exit(f"bench: library {lib} not found")
        p = subprocess.run(["/bin/true"], env=clean_env(LD_PRELOAD=os.path.abspath(lib)),
                           stderr=subprocess.PIPE)
        if p.returncode != 0 or b"ld.so" in p.stderr or b"preload" in p.stderr:
            sys.exit(f"bench: {lib} does not load: {p.stderr.decode(errors='replace').strip()}")
    TMP = tempfile.mkdtemp(prefix="stdiogate-bench-")
    t0 = time.time()
    bench = Bench(args)
    only = set(filter(None, args.only.split(",")))
    try:
        bench.sanity()
        steps = [("process", bench.per_process), ("process", bench.explain_process),
                 ("read", bench.per_read), ("message", bench.per_message),
                 ("throughput", bench.throughput), ("ttfa", bench.ttfa)]
        for key, step in steps:
            if not only or key in only:
                step()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    text = bench.report(time.time() - t0)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    log(f"done in {time.time() - t0:.0f} s; table also in {os.path.relpath(args.out, ROOT)}")


TMP = None

if __name__ == "__main__":
    main()
