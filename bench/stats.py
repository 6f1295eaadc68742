# SPDX-License-Identifier: MIT
"""bench/stats.py - the statistics of bench/run.py, bench/strict.py and
bench/start.py: per-variant series, medians, per-round ratios and
differences, a distribution-free 95% confidence interval of the median, and
the Markdown rows that report them."""
import os
import statistics


def ratio_row(label, rs, target, ok, aa=None):
    """A summary row (label, measured, target, verdict) for per-round ratios
    rs: median, 95% CI of the median and a verdict that says so when the
    noise is larger than the effect."""
    if not rs:
        return (label, "no data", target or "(report)", "**NO DATA**" if ok else "")
    lo, hi = median_ci(rs)
    text = f"{med(rs):.3f} (95% CI {lo:.3f}–{hi:.3f}; rounds {min(rs):.3f}–{max(rs):.3f}"
    if aa:
        text += f"; A/A {med(aa):.3f}"
    text += ")"
    if ok is None:
        verdict = ""
    elif ok(lo) and ok(hi):
        verdict = "met"
    elif not ok(lo) and not ok(hi):
        verdict = "**MISSED**"
    else:
        verdict = ("met (median; CI straddles the target)" if ok(med(rs))
                   else "**MISSED** (median; CI straddles the target)")
    return (label, text, target or "(report)", verdict)


class Series:
    """Values of one variant, one per round (None where the run failed)."""

    def __init__(self, name, note=""):
        self.name = name
        self.note = note
        self.values = []

    def ok(self):
        return [v for v in self.values if v is not None]


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def paired(series, base, invert=False):
    """Per-round ratios series/base (base/series with invert)."""
    out = []
    for v, w in zip(series.values, base.values):
        if v is None or w is None or v == 0 or w == 0:
            continue
        out.append(w / v if invert else v / w)
    return out


def fmt(x, digits=3):
    if x is None or x != x:
        return "-"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 100:
        return f"{x:.1f}"
    if abs(x) >= 10:
        return f"{x:.2f}"
    return f"{x:.{digits}f}"


def median_ci(xs):
    """Distribution-free ~95% confidence interval of the median (order
    statistics of the binomial): (low, high)."""
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan")
    k = max(int((n - 1.96 * n ** 0.5) / 2), 0)
    return xs[k], xs[n - 1 - k]


def fmt_ratio(rs):
    if not rs:
        return "-", "-"
    return f"{med(rs):.3f}", f"{min(rs):.3f}–{max(rs):.3f}"


def timing_table(title, unit, series, base, invert=False, what="ratio"):
    """Markdown rows: variant | median | min | max | ratio | per-round range."""
    lines = [f"#### {title}", "",
             f"| variant | median {unit} | min | max | {what} | per-round range | runs |",
             "| --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    for s in series:
        vals = s.ok()
        if s is base:
            r, rng = "1 (base)", ""
        else:
            r, rng = fmt_ratio(paired(s, base, invert))
        failed = len(s.values) - len(vals)
        runs = f"{len(vals)}" + (f" ({failed} failed)" if failed else "")
        name = (s.name + (f" — {s.note}" if s.note else "")).replace("|", "\\|")
        lines.append(f"| {name} | {fmt(med(vals))} | {fmt(min(vals) if vals else None)} | "
                     f"{fmt(max(vals) if vals else None)} | {r} | {rng} | {runs} |")
    lines.append("")
    return lines


def diffs(series, base):
    """Per-round differences series - base (rounds where either failed left out)."""
    return [v - w for v, w in zip(series.values, base.values) if v is not None and w is not None]


def write_report(name, text):
    """Prints a report and keeps it as bench/out/NAME."""
    print(text)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name), "w") as f:
        f.write(text + "\n")
