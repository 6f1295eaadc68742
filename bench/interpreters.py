#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/interpreters.py - what the wrapper costs interpreters (issue 43).

Two kinds of item, each wrapped (./stdiogate) against unwrapped, interleaved
(every variant once per round, the order rotated), in one run:

  tool children   a server (bench/fixtures/tool_host.py, a Python process
                  under the wrapper or not) runs a tool that writes 300,000
                  lines into a pipe to it: python3, perl, ruby, node.  The
                  times are the tool's, from spawn to exit and its CPU time,
                  measured by the host.  Target: <= 1.05x unwrapped.
  servers         after the client's first message, a server writes 2,000
                  messages of ~200 bytes: Python with json.dump + "\\n" +
                  flush (target <= 1.2x), Python with print(..., flush=True)
                  (<= 1.2x), Node with process.stdout.write (<= 1.1x); and
                  a C server writing a 100 KB message one byte per write(2)
                  (bench/src/bytewise.c, <= 1.5x).  The
                  times are the server's own, from the first message read to
                  the last write, and its CPU time over the same stretch;
                  the harness reads the wire to its end.  The Node server
                  also gives its main thread's CPU time (the thread that
                  writes): the process's also counts V8's compiler and
                  garbage-collector threads, whose share varies run to run
                  as much as the wrapper's cost (#43).

A third row per item, "old variables", runs it unwrapped with what the
wrapper used to export to every descendant (PYTHONUNBUFFERED=1 and the
PERL5OPT/RUBYOPT that load runtime/): the cost this item had before.

Every variant gets the same environment without PYTHONUNBUFFERED, PERL5OPT,
RUBYOPT (a machine may set PYTHONUNBUFFERED=1 for every process: that would
measure nothing), LD_PRELOAD and STDIOGATE_*.  Pinned to one CPU (BENCH_CPU,
default the last; "none" floats).  Ratios: the median of the per-round
ratios, with a distribution-free 95% CI (bench/stats.py), of the wall time
and of the CPU time (on a shared machine the CPU time is the steadier: the
wall time also counts whoever else ran on that CPU).  Report: stdout
and bench/out/interpreters.md.  --quick: 3 rounds, figures not meaningful;
--rounds N: N rounds; --only TEXT: only the items whose label has TEXT in it
(any case), e.g. --only node.
"""
import os
import shutil
import subprocess
import sys

from stats import fmt, med, ratio_row, write_report

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WRAPPER = os.path.join(ROOT, "stdiogate")
FIX = os.path.join(HERE, "fixtures")
RUNTIME = os.path.join(ROOT, "runtime")
LINES = 300000
MESSAGES = 2000
INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n'

TOOLS = [
    ("python3", [sys.executable, "-c",
                 "import sys\nfor i in range(%d): print('tool output line', i)" % LINES]),
    ("perl", ["perl", "-e", 'print "tool output line $_\\n" for 1..%d' % LINES]),
    ("ruby", ["ruby", "-e", '%d.times { |i| puts "tool output line #{i}" }' % LINES]),
    ("node", ["node", "-e",
              "for (let i = 0; i < %d; i++) console.log('tool output line ' + i)" % LINES]),
]
SERVERS = [
    ("Python server, json.dump", [sys.executable, os.path.join(FIX, "burst_server.py"), "json",
                                  str(MESSAGES)], 1.2),
    ("Python server, print(flush=True)", [sys.executable, os.path.join(FIX, "burst_server.py"),
                                          "print", str(MESSAGES)], 1.2),
    ("Node server, process.stdout.write", ["node", os.path.join(FIX, "burst_server.js"),
                                           str(MESSAGES)], 1.1),
    ("C server, one byte per write(2), 100 KB", [os.path.join(HERE, "bin", "bytewise"), "100000"],
     1.5),
]
TOOL_TARGET = 1.05
OURS = ("PYTHONUNBUFFERED", "PERL5OPT", "RUBYOPT", "LD_PRELOAD")


def base_env():
    return {k: v for k, v in os.environ.items()
            if k not in OURS and not k.startswith("STDIOGATE_")}


def old_env():
    """What the wrapper exported to every descendant before issue 43."""
    env = base_env()
    env["PYTHONUNBUFFERED"] = "1"
    env["PERL5OPT"] = "-I%s/perl -MStdiogate::Unbuffered" % RUNTIME
    env["RUBYOPT"] = "-r%s/ruby/stdiogate_unbuffered.rb" % RUNTIME
    return env


def measured(err, key):
    """(wall ms, CPU ms[, main-thread CPU ms]) from the KEY line, or None."""
    for line in err.decode(errors="replace").splitlines():
        if line.startswith(key + " "):
            return tuple(float(x) for x in line.split()[1:4])
    return None


def run_tool(argv, wrapped, env):
    host = [sys.executable, os.path.join(FIX, "tool_host.py")] + argv
    p = subprocess.run(([WRAPPER] if wrapped else []) + host, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    ms = measured(p.stderr, "tool-ms")
    if p.returncode != 0 or ms is None:
        sys.exit("bench/interpreters.py: %s: %s" % (argv[0], p.stderr.decode(errors="replace")))
    return ms


def run_server(argv, wrapped, env):
    p = subprocess.run(([WRAPPER] if wrapped else []) + argv, input=INIT,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    ms = measured(p.stderr, "burst-ms")
    frames = p.stdout.count(b"\n")
    want = 2 if argv[0].endswith("bytewise") else MESSAGES + 1   # the answer, one message
    if p.returncode != 0 or ms is None or frames != want:
        sys.exit("bench/interpreters.py: %s: status %d, %d frames: %s"
                 % (argv[0], p.returncode, frames, p.stderr.decode(errors="replace")))
    return ms


def variants(run, argv):
    return [("unwrapped", lambda: run(argv, False, base_env())),
            ("./stdiogate", lambda: run(argv, True, base_env())),
            ("old variables", lambda: run(argv, False, old_env()))]


def interleave(items, rounds):
    """items: (label, [(variant, fn)]) -> {label: {variant: [ms per round]}}"""
    times = {label: {name: [] for name, _ in vs} for label, vs in items}
    for label, vs in items:       # warm the page cache
        for _, fn in vs:
            fn()
    for r in range(rounds):
        for label, vs in items:
            k = r % len(vs)
            for name, fn in vs[k:] + vs[:k]:
                times[label][name].append(fn())
    return times


def report(items, times, targets, rounds, cpu):
    lines = ["### Interpreters: tool children and servers (issue 43; %d rounds, CPU %s)" %
             (rounds, "floating" if cpu == "none" else "pinned"), "",
             "| item | time | unwrapped ms | ./stdiogate ms | old variables ms | "
             "./stdiogate / unwrapped | target | verdict | old variables / unwrapped |",
             "| --- | --- | ---: | ---: | ---: | --- | --- | --- | ---: |"]
    for label, _ in items:
        t = times[label]
        target = targets[label]
        kinds = ((0, "wall"), (1, "CPU"), (2, "main-thread CPU"))
        for k, kind in kinds[:min(len(v) for v in t["unwrapped"])]:
            base = [v[k] for v in t["unwrapped"]]
            ours = [v[k] for v in t["./stdiogate"]]
            was = [v[k] for v in t["old variables"]]
            rs = [w / u for w, u in zip(ours, base) if u > 0]
            old = [o / u for o, u in zip(was, base) if u > 0]
            _, text, _, verdict = ratio_row(label, rs, "", lambda x: x <= target)
            lines.append("| %s | %s | %s | %s | %s | %s | ≤ %.2f× | %s | %s |" % (
                label if k == 0 else "", kind, fmt(med(base)), fmt(med(ours)), fmt(med(was)),
                text, target, verdict, fmt(med(old))))
    lines += ["", "(Times are medians; each ratio is the median of the per-round ratios. "
              "\"Old variables\": unwrapped, with the PYTHONUNBUFFERED, PERL5OPT and RUBYOPT "
              "the wrapper exported to every descendant before issue 43.)", ""]
    return "\n".join(lines)


def main():
    args = sys.argv[1:]
    quick = "--quick" in args
    rounds = 3 if quick else 15
    only = ""
    for i, a in enumerate(args):
        if a == "--rounds" and i + 1 < len(args):
            rounds = int(args[i + 1])
        if a == "--only" and i + 1 < len(args):
            only = args[i + 1].lower()
    cpu = os.environ.get("BENCH_CPU", "auto")
    if cpu != "none":
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1] if cpu == "auto" else int(cpu)})
    items, targets = [], {}
    for name, argv in TOOLS:
        if shutil.which(argv[0]):
            label = "tool child: %s, %s lines into a pipe" % (name, format(LINES, ","))
            items.append((label, variants(run_tool, argv)))
            targets[label] = TOOL_TARGET
    for label, argv, target in SERVERS:
        if shutil.which(argv[0]):
            if not argv[0].endswith("bytewise"):
                label = "%s, %s messages" % (label, format(MESSAGES, ","))
            items.append((label, variants(run_server, argv)))
            targets[label] = target
    items = [(label, vs) for label, vs in items if only in label.lower()]
    if not items:
        sys.exit("bench/interpreters.py: no item matches --only %s" % only)
    times = interleave(items, rounds)
    text = report(items, times, targets, rounds, cpu)
    write_report("interpreters.md", text)


if __name__ == "__main__":
    main()
