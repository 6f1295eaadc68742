#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/start.py - what the wrapper costs per server start (issue 14's target).

Each round starts every variant once, in a rotated order, with stdout and
stderr pipes (as a client gives them) that are read to the end:

    /bin/true                      bare
    stdbuf -o0 /bin/true           coreutils' wrapper, the reference
    ./stdiogate /bin/true          the default mode (inspector, eval, preload)
    ./stdiogate --strict /bin/true strict mode (the filter started as well)
    stdbuf -o0 banner              a program that prints a line at start with
                                   write(2) (bench/bin/banner, as Python's
                                   print, console.log): the reference for
    ./stdiogate banner             the default mode with startup junk that
                                   stderr takes at once (no helper)
    stdbuf -o0 trivial             the same with C stdio's puts (bench/bin/
    ./stdiogate trivial            trivial): glibc writes it unseen, the
                                   helper carries it
    npm's stdiogate /bin/true      with --npm BIN: the npm package's launcher
                                   (pkg/npm-launcher.sh), which execs the
                                   wrapper of its platform package

Wall time from just before the spawn to the child's exit, pinned to one CPU
(BENCH_CPU, default the last one; "none" leaves it floating).  The verdict
is the median of the per-round ratios stdiogate / stdbuf, with a
distribution-free 95% confidence interval.  Report: stdout and
bench/out/start.md.  (The wheel's stdiogate is the wrapper itself: nothing
to add.  The npm row's ratio to the ./stdiogate row is what the launcher
adds.)
"""
import os
import subprocess
import sys
import time

from stats import med as median, median_ci, write_report

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WRAPPER = os.path.join(ROOT, "stdiogate")
TARGET = 1.5            # a silent server (issue 35)
TARGET_JUNK = 2.0       # one that prints at start


def run_once(argv, env):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    out, err = p.communicate()
    t1 = time.perf_counter()
    if p.returncode != 0:
        sys.exit(f"bench/start.py: {argv} exited {p.returncode}: {err.decode(errors='replace')}")
    return (t1 - t0) * 1e3


def main():
    quick = "--quick" in sys.argv[1:]
    npm = sys.argv[sys.argv.index("--npm") + 1] if "--npm" in sys.argv[1:] else None
    rounds = 30 if quick else 400
    cpu = os.environ.get("BENCH_CPU", "auto")
    if cpu != "none":
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1] if cpu == "auto" else int(cpu)})
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("STDIOGATE_") and k != "LD_PRELOAD"}
    true = "/bin/true"
    trivial = os.path.join(HERE, "bin", "trivial")
    banner = os.path.join(HERE, "bin", "banner")
    variants = [("bare /bin/true", [true]),
                ("stdbuf -o0 /bin/true", ["stdbuf", "-o0", true]),
                ("./stdiogate /bin/true", [WRAPPER, true]),
                ("./stdiogate --strict /bin/true", [WRAPPER, "--strict", true]),
                ("stdbuf -o0 banner", ["stdbuf", "-o0", banner]),
                ("./stdiogate banner", [WRAPPER, banner]),
                ("stdbuf -o0 trivial", ["stdbuf", "-o0", trivial]),
                ("./stdiogate trivial", [WRAPPER, trivial])]
    if npm:
        variants.append(("npm's stdiogate /bin/true", [npm, true]))
    times = {name: [] for name, _ in variants}
    for _, argv in variants:          # warm the page cache
        for _ in range(5):
            run_once(argv, env)
    for r in range(rounds):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for name, argv in order:
            times[name].append(run_once(argv, env))
    refs = {"./stdiogate trivial": times["stdbuf -o0 trivial"],
            "./stdiogate banner": times["stdbuf -o0 banner"]}
    lines = [f"### Wrapper start cost ({rounds} rounds, CPU {'floating' if cpu == 'none' else 'pinned'})",
             "",
             "| variant | median ms | min ms | / stdbuf (median of per-round ratios) | 95% CI |",
             "| --- | ---: | ---: | ---: | --- |"]
    verdicts = []
    for name, _ in variants:
        ts = times[name]
        ratios = [a / b for a, b in zip(ts, refs.get(name, times["stdbuf -o0 /bin/true"]))]
        lo, hi = median_ci(ratios)
        med = median(ratios)
        lines.append(f"| {name} | {median(ts):.2f} | {min(ts):.2f} | {med:.2f} | "
                     f"{lo:.2f}–{hi:.2f} |")
        target = {"./stdiogate /bin/true": TARGET, "./stdiogate banner": TARGET_JUNK,
                  "./stdiogate trivial": TARGET_JUNK}.get(name)
        if target:
            verdicts.append(f"{name}: target ≤ {target:.1f}× stdbuf: "
                            f"{'met' if hi <= target else 'CI straddles the target' if lo <= target else 'missed'}"
                            f" ({med:.2f}×, CI {lo:.2f}–{hi:.2f})")
    lines += ["", "(`./stdiogate banner` and `./stdiogate trivial` are divided by the same program under "
              "`stdbuf -o0`, every other row by `stdbuf -o0 /bin/true`.)", ""] + verdicts + [""]
    text = "\n".join(lines)
    write_report("start.md", text)


if __name__ == "__main__":
    main()
