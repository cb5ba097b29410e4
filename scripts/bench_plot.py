#!/usr/bin/env python3
"""Draws bench-results.svg from an authcore-bench JSON report (make bench runs it with the venv).

Per operation, AuthCore's median beside its C twin (the same GMP/OpenSSL calls in a plain C loop) and its
Python reference where there is one, as horizontal bars on a log scale; each twin's bar carries the
ratio (AuthCore/C as the paired ratio the table prints, Python/AuthCore as "N x slower"), and each
operation's label carries the notes on sizes (pycognito's 1024-bit a against AuthCore's 256-bit default).

Usage: .venv/bin/python scripts/bench_plot.py [bench-results.json] [bench-results.svg]
"""
import json
import sys
import textwrap

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

COLOURS = {"AuthCore": "#1f6feb", "C twin": "#8b949e", "Python reference": "#d29922"}


def base_name(name):
    for prefix in ("c.", "py."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def main(argv):
    source = argv[1] if len(argv) > 1 else "bench-results.json"
    target = argv[2] if len(argv) > 2 else "bench-results.svg"
    with open(source) as f:
        document = json.load(f)
    rows = {r["name"]: r for r in document["results"] if r.get("median", 0) > 0}
    if not rows:
        print("bench_plot: %s has no results to draw" % source, file=sys.stderr)
        return 1
    operations = [name for name in rows if base_name(name) == name]

    fig_height = 0.55 * sum(1 + ("c." + o in rows) + ("py." + o in rows) for o in operations) + 1.5
    fig, ax = plt.subplots(figsize=(13, fig_height))
    y = 0
    ticks, labels = [], []
    for operation in reversed(operations):
        engine = rows[operation]
        bars = [("AuthCore", engine, "")]
        twin = rows.get("c." + operation)
        if twin:
            ratio = twin.get("paired_ratio") or engine["median"] / twin["median"]
            bars.append(("C twin", twin, "AuthCore/C %.2f" % ratio))
        reference = rows.get("py." + operation)
        if reference:
            bars.append(("Python reference", reference, "Python %.0fx slower" % (reference["median"] / engine["median"])))
        top = y + len(bars) - 1
        for offset, (kind, row, text) in enumerate(reversed(bars)):
            position = y + offset
            ax.barh(position, row["median"], color=COLOURS[kind], height=0.8, label=kind)
            spread = [[row["median"] - row.get("p10", row["median"])], [row.get("p90", row["median"]) - row["median"]]]
            ax.errorbar(row["median"], position, xerr=spread, fmt="none", ecolor="#30363d", capsize=2, linewidth=0.8)
            caption = "%s  %s" % (format_ns(row["median"]), text) if text else format_ns(row["median"])
            ax.text(row["median"] * 1.15, position, caption, va="center", fontsize=7)
        notes = "; ".join(r.get("note", "") for _, r, _ in bars if r.get("note"))
        ticks.append((y + top) / 2)
        labels.append(operation + ("\n" + textwrap.fill(notes, 48) if notes else ""))
        y = top + 1.6
    ax.set_xscale("log")
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=6.5)
    ax.set_xlabel("median time per operation (log scale; whiskers: p10-p90)")
    environment = document.get("environment", {})
    ax.set_title("AuthCore beside its C twins and Python references\n%s\n%s; GMP %s; commit %s" % (
        document.get("machine", ""), environment.get("openssl", "?"), environment.get("gmp", "?"),
        environment.get("commit", "?")), fontsize=9)
    handles, names = ax.get_legend_handles_labels()
    unique = dict(zip(names, handles))
    ax.legend(unique.values(), unique.keys(), loc="lower right", fontsize=8)
    ax.set_xlim(left=min(r["median"] for r in rows.values()) / 2, right=max(r["median"] for r in rows.values()) * 400)
    fig.tight_layout()
    fig.savefig(target)
    print("wrote %s (%d operations)" % (target, len(operations)))
    return 0


def format_ns(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.2f µs" % (ns / 1e3)
    return "%.0f ns" % ns


if __name__ == "__main__":
    sys.exit(main(sys.argv))
