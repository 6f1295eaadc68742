#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/strict.py - what strict mode (stdiogate-filter) costs: `make bench-strict`.

A separate item from bench/run.py, with its statistics and C helpers:
variants interleaved round by round (order rotated), medians of per-round
ratios with a distribution-free 95% CI, an A/A row for the noise floor.
Timed runs are pinned to one CPU (the client, the server and the filter
alike: unpinned figures on 2 cores measure where the scheduler put each
process).  Throughput is also measured with the client on one CPU and the
server (with the filter) on the other, and not pinned.

  per message   bin/client, 10,000 sequential pings to bin/echo_server:
                direct; through bin/relay (a bare read/write relay started as
                the filter is: the floor for any filter process); through
                stdiogate-filter (strict); through `./stdiogate --strict`
  syscalls      strace -f of a strict run of 1,000 pings: read and write calls
                of the filter process itself
  throughput    ten 8 MiB answers: direct, relay, relay with 1 MiB pipes
                (the wake-ups strict mode has for a large message, without
                filtering), strict; on one CPU, on two, not pinned
  memory        the filter's peak RSS (its level-2 exit line) for 1 GiB of
                junk without a newline, and for the 8 MiB answers
  start cost    time to the first answer (spawn to initialize answer) of
                echo_server: direct, relay, strict

The report goes to stdout and bench/out/strict.md.
"""

import argparse
import os
import re
import subprocess
import sys

import run as R
import stats as S

FILTER = os.path.join(R.ROOT, "stdiogate-filter")


class Strict:
    def __init__(self, args):
        self.quick = args.quick
        cpu = args.cpu
        if cpu == "auto":
            cpu = str(max(os.sched_getaffinity(0)))
        self.pin = ["taskset", "-c", cpu] if cpu not in ("", "none") else []
        self.cpu = cpu
        q = self.quick
        self.p = {"msg_rounds": 3 if q else 21, "pings": 1000 if q else 10000,
                  "tp_rounds": 3 if q else 41, "tp_count": 3 if q else 10,
                  "ttfa_rounds": 3 if q else 21, "junk": (64 << 20) if q else (1 << 30)}
        self.summary, self.out, self.notes = [], [], []
        self.load = [os.getloadavg()]

    def variants(self, srv, wrapper=False):
        v = [("direct", ["-u", "LD_PRELOAD", "--"] + srv),
             ("direct (A/A)", ["-u", "LD_PRELOAD", "--"] + srv),
             ("bare relay", ["-u", "LD_PRELOAD", "--", R.b("relay")] + srv),
             ("strict (stdiogate-filter)", ["-u", "LD_PRELOAD", "--", FILTER, "--"] + srv)]
        if wrapper:
            v.append(("./stdiogate --strict", ["-u", "LD_PRELOAD", "--", R.WRAPPER, "--strict", "--"] + srv))
        return v

    def interleave(self, variants, cargs, rounds, value, pin=True, inner=()):
        """inner: a prefix for the command (after the client's `--`)."""
        series = [S.Series(v[0]) for v in variants]
        for r in range(rounds):
            for i in R.rotate(list(range(len(variants))), r):
                cmd = variants[i][1]
                cut = cmd.index("--") + 1
                cmd = cmd[:cut] + list(inner) + cmd[cut:]
                p = R.run((self.pin if pin else []) + [R.b("client")] + cargs + cmd)
                kv = R.parse_kv(p.stdout.decode())
                if p.returncode != 0 or not kv:
                    series[i].values.append(None)
                    self.notes.append(f"WARNING: {variants[i][0]} failed (exit {p.returncode}): "
                                      f"{p.stderr.decode(errors='replace').strip()[:200]}")
                    continue
                if kv.get("stray"):
                    self.notes.append(f"WARNING: {variants[i][0]}: {kv['stray']} stray lines on stdout")
                series[i].values.append(value(kv))
        return series

    def ratio(self, label, rs, target, ok, aa=None):
        self.summary.append(S.ratio_row(label, rs, target, ok, aa))

    # ------------------------------------------------------------ per message
    def per_message(self):
        n = self.p["pings"]
        srv = [R.b("echo_server")]
        variants = self.variants(srv, wrapper=os.access(R.WRAPPER, os.X_OK))
        R.log(f"strict per message: {len(variants)} variants x {self.p['msg_rounds']} rounds x {n} pings")
        med_s = self.interleave(variants, ["-n", str(n)], self.p["msg_rounds"],
                                lambda kv: (kv["median_ns"] / 1000, kv["total_ns"] / kv["requests"] / 1000))
        median = [S.Series(s.name) for s in med_s]
        mean = [S.Series(s.name) for s in med_s]
        for s, a, b in zip(med_s, median, mean):
            a.values = [v[0] if v else None for v in s.values]
            b.values = [v[1] if v else None for v in s.values]
        self.out += ["## Per message: sequential pings, pinned to one CPU", ""]
        self.out += S.timing_table(f"Round trip, median of {n} pings per run (µs); {self.p['msg_rounds']} "
                                   "rounds", "µs", median, median[0], what="time ratio")
        self.out += S.timing_table(f"Round trip, mean of {n} pings per run (µs)", "µs", mean, mean[0],
                                   what="time ratio")
        aa = S.paired(median[1], median[0])
        self.ratio("per message: strict / bare relay (medians)", S.paired(median[3], median[2]), "≤ 1.10",
                   lambda x: x <= 1.10, S.paired(median[1], median[0]))
        self.ratio("per message: bare relay / direct (medians; the floor of a filter process)",
                   S.paired(median[2], median[0]), "(report)", None, aa)
        self.ratio("per message: strict / direct (medians)", S.paired(median[3], median[0]), "(report)",
                   None, aa)
        added = S.diffs(mean[3], mean[0])
        relay_added = S.diffs(mean[2], mean[0])
        if added:
            lo, hi = S.median_ci(added)
            self.summary.append(("per message: strict − direct, mean round trip",
                                 f"+{S.med(added):.2f} µs (95% CI {lo:.2f}–{hi:.2f}; bare relay "
                                 f"+{S.med(relay_added):.2f} µs)", "≤ +10 µs",
                                 "met" if hi <= 10 else ("**MISSED**" if lo > 10 else
                                                          "met (median; CI straddles the target)"
                                                          if S.med(added) <= 10 else "**MISSED** (median)")))
        if len(median) > 4:
            self.ratio("per message: ./stdiogate --strict / direct (medians)", S.paired(median[4], median[0]),
                       "(report)", None, aa)
        self.syscalls()

    def syscalls(self):
        """read and write calls of the filter process, from strace -f."""
        n = 1000
        f = os.path.join(R.TMP, "strace-strict.txt")
        p = R.run([R.b("client"), "-n", str(n), "-u", "LD_PRELOAD", "--", "strace", "-f", "-qq", "-o", f,
                   "-e", "trace=read,write,writev,poll,clone,clone3,fork", FILTER, "--", R.b("echo_server")])
        if p.returncode != 0:
            self.notes.append(f"WARNING: strace run failed: {p.stderr.decode(errors='replace')[:200]}")
            return
        with open(f) as fh:
            lines = fh.read().splitlines()
        first = lines[0].split()[0]
        middle = next(l.split("= ")[-1] for l in lines if l.startswith(first + " ") and "clone" in l)
        filt = next(l.split("= ")[-1].strip() for l in lines
                    if l.startswith(middle + " ") and "clone" in l and "= " in l)
        counts = {}
        for l in lines:
            m = re.match(rf"^{filt}\s+(\w+)\(", l)
            if m:
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        calls = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        r, w = counts.get("read", 0), counts.get("write", 0) + counts.get("writev", 0)
        self.summary.append(("per message: the filter's system calls (strace -f, 1 + 1,000 messages)",
                             f"read {r}, write {w} ({calls})", "1 read + 1 write per message",
                             "met" if r <= n + 2 and w <= n + 1 else "**MISSED**"))

    # ------------------------------------------------------------ throughput
    def throughput(self):
        other = [c for c in sorted(os.sched_getaffinity(0)) if str(c) != self.cpu]
        self.throughput_run("pinned to one CPU", True)
        if self.pin and other:
            self.throughput_run(f"client on CPU {self.cpu}, server and filter on CPU {other[0]}", True,
                                ["taskset", "-c", str(other[0])])
        self.throughput_run("not pinned", False)

    def throughput_run(self, how, pin, inner=()):
        cnt, size = self.p["tp_count"], 8 << 20
        srv = [R.b("echo_server"), "-b", str(size)]
        variants = self.variants(srv)
        variants.insert(3, ("relay, 1 MiB pipes", ["-u", "LD_PRELOAD", "--", R.b("relay"), "-g"] + srv))
        if not self.pin:
            how = "not pinned"
        R.log(f"strict throughput ({how}): {len(variants)} variants x {self.p['tp_rounds']} rounds")
        series = self.interleave(variants, ["-n", str(cnt)], self.p["tp_rounds"],
                                 lambda kv: (kv["bytes"] / cnt / (1 << 20) / (kv["min_ns"] / 1e9),
                                             kv["bytes"] / (1 << 20) / (kv["total_ns"] / 1e9)), pin=pin,
                                 inner=inner)
        fast = [S.Series(s.name) for s in series]
        whole = [S.Series(s.name) for s in series]
        for s, a, b in zip(series, fast, whole):
            a.values = [v[0] if v else None for v in s.values]
            b.values = [v[1] if v else None for v in s.values]
        self.out += [f"## Throughput: ten 8 MiB answers per run, {how}", ""]
        self.out += S.timing_table(f"MiB/s of the fastest answer of a run; {self.p['tp_rounds']} rounds",
                                   "MiB/s", fast, fast[0], what="throughput ratio")
        self.out += S.timing_table("MiB/s over the whole run", "MiB/s", whole, whole[0],
                                   what="throughput ratio")
        for name, s in (("fastest answer", fast), ("whole runs", whole)):
            aa = S.paired(s[1], s[0])
            self.ratio(f"throughput ({how}, {name}): strict / direct", S.paired(s[4], s[0]), "≥ 0.8",
                       lambda x: x >= 0.8, aa)
            self.ratio(f"throughput ({how}, {name}): strict / bare relay", S.paired(s[4], s[2]), "≥ 0.9",
                       lambda x: x >= 0.9)
            self.ratio(f"throughput ({how}, {name}): bare relay / direct", S.paired(s[2], s[0]),
                       "(report)", None)
            self.ratio(f"throughput ({how}, {name}): strict / relay with 1 MiB pipes", S.paired(s[4], s[3]),
                       "(report)", None)

    # ------------------------------------------------------------ memory
    def memory(self):
        R.log("strict memory: peak RSS of the filter")
        junk = self.p["junk"]
        env = R.clean_env(STDIOGATE_DEBUG="2")
        # 1 GiB of junk without a newline (stderr read by us and thrown away)
        p = subprocess.Popen([FILTER, "--", "sh", "-c", f"head -c {junk} /dev/zero | tr '\\0' x"],
                             env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        tail = b""
        while True:
            chunk = p.stderr.read(1 << 20)
            if not chunk:
                break
            tail = (tail + chunk)[-4096:]
        p.wait()
        m = re.search(rb"(\d+) bytes of junk.*peak RSS (\d+) KiB", tail)
        rows = []
        if m:
            rows.append((f"{junk >> 20} MiB of junk without a newline", int(m.group(2)), int(m.group(1))))
        # 8 MiB answers
        p = R.run([R.b("client"), "-n", "10", "-E", "-e", "STDIOGATE_DEBUG=2", "-u", "LD_PRELOAD", "--",
                   FILTER, "--", R.b("echo_server"), "-b", str(8 << 20)])
        m2 = re.search(rb"peak RSS (\d+) KiB", p.stderr)
        if m2:
            rows.append(("ten 8 MiB answers", int(m2.group(1)), 0))
        relay_rss = None
        st = R.run(["sh", "-c", f"command time -f %M {R.b('relay')} true 2>&1 >/dev/null || true"])
        if st.stdout.strip().isdigit():
            relay_rss = int(st.stdout.strip())
        self.out += ["## Memory: the filter's peak RSS (getrusage, its level-2 exit line)", "",
                     "| input | peak RSS | junk bytes counted |", "| --- | ---: | ---: |"]
        self.out += [f"| {a} | {b:,} KiB | {c:,} |" for a, b, c in rows] + [""]
        bound = ("bound: 256 KiB read buffer + 64 KiB held candidate + 1 MiB junk backlog + libc; "
                 "independent of the input")
        for a, b, _ in rows:
            self.summary.append((f"memory: filter peak RSS, {a}", f"{b:,} KiB", bound,
                                 "met" if b < 8 * 1024 else "**MISSED**"))

    # ------------------------------------------------------------ start cost
    def start_cost(self):
        variants = self.variants([R.b("echo_server")], wrapper=os.access(R.WRAPPER, os.X_OK))
        R.log(f"strict start cost: {len(variants)} variants x {self.p['ttfa_rounds']} rounds")
        series = self.interleave(variants, ["-n", "0"], self.p["ttfa_rounds"], lambda kv: kv["first_ns"] / 1e6)
        self.out += ["## Start cost: spawn to the initialize answer of echo_server (ms)", ""]
        self.out += S.timing_table(f"{self.p['ttfa_rounds']} rounds", "ms", series, series[0], what="time ratio")
        for i, label in ((2, "bare relay"), (3, "strict (stdiogate-filter)")) + \
                ((4, "./stdiogate --strict"),) * (len(series) > 4):
            d = S.diffs(series[i], series[0])
            if d:
                lo, hi = S.median_ci(d)
                self.summary.append((f"start cost: {label} − direct, time to first answer",
                                     f"+{S.med(d):.3f} ms (95% CI {lo:.3f}–{hi:.3f})", "(report)", ""))

    def report(self):
        self.load.append(os.getloadavg())
        head = subprocess.run(["git", "log", "-1", "--format=%h %cd", "--date=iso"], cwd=R.ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode().strip()
        lines = ["# stdiogate strict mode: benchmarks", "",
                 f"- command: `make bench-strict{' BENCH_QUICK=1' if self.quick else ''}`"
                 f"{' (QUICK MODE: figures not meaningful)' if self.quick else ''}",
                 f"- tree: {head}; {os.cpu_count()} CPUs; timed runs pinned to CPU {self.cpu}"
                 if self.pin else f"- tree: {head}; timed runs not pinned",
                 "- load average (1 min) at start, end: " + ", ".join(f"{l[0]:.2f}" for l in self.load), "",
                 "## Targets", "", "| item | measured | target | verdict |", "| --- | --- | --- | --- |"]
        lines += [f"| {a} | {m} | {t} | {v} |" for a, m, t, v in self.summary] + [""]
        if self.notes:
            lines += ["## Notes", ""] + [f"- {n}" for n in dict.fromkeys(self.notes)] + [""]
        return "\n".join(lines + self.out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cpu", default=os.environ.get("BENCH_CPU", "auto"))
    ap.add_argument("--only", default="", help="comma list: message,throughput,memory,start")
    ap.add_argument("--out", default=os.path.join(R.ROOT, "bench", "out", "strict.md"))
    args = ap.parse_args()
    for prog in (FILTER, R.b("client"), R.b("echo_server"), R.b("relay")):
        if not os.access(prog, os.X_OK):
            sys.exit(f"bench-strict: {prog} missing (make all bench-bins)")
    R.TMP = R.tempfile.mkdtemp(prefix="stdiogate-bench-strict-")
    bench = Strict(args)
    only = set(filter(None, args.only.split(",")))
    try:
        for key, step in (("message", bench.per_message), ("throughput", bench.throughput),
                          ("memory", bench.memory), ("start", bench.start_cost)):
            if not only or key in only:
                step()
    finally:
        R.shutil.rmtree(R.TMP, ignore_errors=True)
    text = bench.report()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
