#!/usr/bin/env python3
"""Draws the benchmark pictures from an authcore-bench JSON report (make bench runs it with the venv).

Two pictures, one question each:

- ratios.svg: how far each engine row is from what it is compared with. One bar per comparison of
  scripts/bench_comparisons.json (an engine row against its C twin or C floor, its Python peer, or
  another engine row), on a linear axis with 1.0 (as fast) drawn; a bar left of 1.0 is faster. Against
  a C row the ratio is the paired one (the median of per-sample ratios, the two rows measured
  alternately); against a Python peer, which runs in its own process, the ratio of the medians. Where
  an issue set a target, it is drawn on the bar as a red line.
- medians.svg: absolute medians with their p10-p90 whiskers, one panel per family of rows, each on
  a log axis only when its rows span more than a factor of 20; absolute targets drawn as red lines.

Captions sit outside the bars and whiskers, labels are at least 9 pt, and the SVG keeps its text as
text (searchable, selectable). Every comparison is looked up by name from the mapping file; no row is
matched by a name prefix.

Usage: .venv/bin/python scripts/bench_plot.py REPORT.json OUTDIR
       python3 scripts/bench_plot.py --check-mapping REPORT.json [NAMES.txt]
         (no matplotlib needed: exits 1 when a C twin, Python peer or paired row of the report, or a
         name of NAMES.txt, one per line as `authcore-bench --list` prints them, has no comparison,
         or when a comparison names a row neither has)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAPPING = os.path.join(HERE, "bench_comparisons.json")

COLOURS = {"C twin": "#8b949e", "C floor": "#57606a", "Python peer": "#d29922", "Swift row": "#1f6feb"}
TARGET_COLOUR = "#cf222e"
LABEL_PT = 11
CAPTION_PT = 10


def load_mapping(path=MAPPING):
    with open(path) as f:
        return json.load(f)


def is_compared_row(name):
    """A row that only has meaning beside another: a C twin or floor, or a Python peer."""
    return name.startswith("c.") or name.startswith("py.")


def mapping_problems(mapping, rows, listed_names=()):
    """What the mapping misses or names wrongly, as sentences (empty: all is mapped).

    rows: the report's rows (dicts with name and maybe paired_with); listed_names: the names
    `authcore-bench --list` prints (the benchmarks the code has now)."""
    problems = []
    compared = {(c["row"], c["against"]) for c in mapping["comparisons"]}
    against = {c["against"] for c in mapping["comparisons"]}
    # Rows that exist only where the processor runs them (a kernel's own row): named, never missing.
    known = {r["name"] for r in rows} | set(listed_names) | set(mapping.get("processor_dependent_rows", []))
    for name in sorted(known):
        if is_compared_row(name) and name not in against:
            problems.append("%s is a C or Python row with no comparison in %s" % (name, os.path.basename(MAPPING)))
    for row in rows:
        partner = row.get("paired_with")
        if partner and not row["name"].startswith("c.") and (row["name"], partner) not in compared:
            problems.append("%s is paired with %s but has no comparison" % (row["name"], partner))
    for comparison in mapping["comparisons"]:
        for name in (comparison["row"], comparison["against"]):
            if name not in known:
                problems.append("the comparison %s / %s names %s, which no benchmark has" % (comparison["row"], comparison["against"], name))
    family_rows = [name for family in mapping["families"] for name in family["rows"]]
    for name in sorted(known):
        if not is_compared_row(name) and name not in family_rows:
            problems.append("%s is in no family of %s (the medians picture would leave it out)" % (name, os.path.basename(MAPPING)))
    for name in family_rows:
        if name not in known:
            problems.append("the families name %s, which no benchmark has" % name)
    for target in mapping["absolute_targets"]:
        if target["row"] not in known:
            problems.append("an absolute target names %s, which no benchmark has" % target["row"])
    return problems


def comparison_ratio(comparison, rows):
    """(ratio, how) of one comparison in a report, or None when the run lacks a row.

    ratio is the row's time over the other's: below 1 the row is faster."""
    row, other = rows.get(comparison["row"]), rows.get(comparison["against"])
    if not row or not other or row["median"] <= 0 or other["median"] <= 0:
        return None
    # A C twin's paired ratio is engine / twin, its engine named by paired_with or by the twin's own name.
    if other["name"].startswith("c.") and other.get("paired_ratio") and other.get("paired_with", other["name"][2:]) == row["name"]:
        return other["paired_ratio"], "paired"
    if row.get("paired_with") == other["name"] and row.get("paired_ratio"):
        return row["paired_ratio"], "paired"
    return row["median"] / other["median"], "medians"


def format_ns(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.2f µs" % (ns / 1e3)
    return "%.0f ns" % ns


def ratio_caption(ratio, how, comparison):
    text = "%.2f×" % ratio
    if ratio < 0.95:
        text += " (%.1f× faster)" % (1 / ratio)
    if how == "medians":
        text += ", medians"
    if "target" in comparison:
        text += "; target ≤ %.2f× (%s)" % (comparison["target"], comparison["target_source"].split(":")[0])
    return text


def subtitle(document):
    environment = document.get("environment", {})
    return "%s\n%s; GMP %s; commit %s, %s" % (
        document.get("machine", "?"), environment.get("openssl", "?"), environment.get("gmp", "?"),
        environment.get("commit", "?"), str(environment.get("date", "?"))[:10])


def duration_axis(ax, plt):
    """Ticks of a nanosecond axis read as durations (1 µs, 10 ms), not as powers of ten."""
    from matplotlib.ticker import FuncFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: format_ns(value).replace(".00", "") if value > 0 else "0"))


# The ratio axis ends here; a longer bar is drawn to it, hatched, with its value in the caption (one
# outlier, a new TLS connection against a kept one, would otherwise squeeze every other bar).
RATIO_AXIS_END = 4.5


def draw_ratios(plt, document, rows, mapping, target):
    drawn = []
    for comparison in mapping["comparisons"]:
        found = comparison_ratio(comparison, rows)
        if found:
            drawn.append((comparison, found[0], found[1]))
    if not drawn:
        return 0
    height = 0.5 * len(drawn) + 2.2
    fig, ax = plt.subplots(figsize=(11, height))
    widest = min(RATIO_AXIS_END, max(max(r, c.get("target", 0)) for c, r, _ in drawn))
    right = max(2.0, widest * 1.05) + 2.4  # room for the captions right of the bars
    for index, (comparison, ratio, how) in enumerate(drawn):
        y = len(drawn) - 1 - index
        shown = min(ratio, RATIO_AXIS_END)
        ax.barh(y, shown - 1.0, left=1.0, height=0.62, color=COLOURS[comparison["kind"]], label=comparison["kind"],
                hatch="//" if ratio > RATIO_AXIS_END else None, edgecolor="white" if ratio > RATIO_AXIS_END else None)
        if "target" in comparison:
            ax.plot([comparison["target"]] * 2, [y - 0.4, y + 0.4], color=TARGET_COLOUR, linewidth=2.2, label="target")
        end = max(shown, 1.0, comparison.get("target", 0))
        caption = ratio_caption(ratio, how, comparison) + (" (beyond the axis)" if ratio > RATIO_AXIS_END else "")
        ax.text(end + 0.04, y, caption, va="center", fontsize=CAPTION_PT)
    ax.axvline(1.0, color="#24292f", linewidth=1)
    ax.set_yticks(range(len(drawn)))
    ax.set_yticklabels(
        ["%s / %s%s" % (c["row"], c["against"], "\n" + c["label"] if "label" in c else "") for c, _, _ in reversed(drawn)],
        fontsize=LABEL_PT, linespacing=1.0)
    ax.set_xlim(0, right)
    ax.set_xlabel("row time / compared time (1.0: as fast; left of it: faster)", fontsize=LABEL_PT)
    ax.tick_params(axis="x", labelsize=LABEL_PT)
    handles, names = ax.get_legend_handles_labels()
    unique = {}
    for name, handle in zip(names, handles):
        unique.setdefault(name, handle)  # the first bar of a kind: the hatched outlier is not the key
    fig.legend(unique.values(), unique.keys(), loc="upper right", fontsize=CAPTION_PT, ncol=len(unique))
    fig.suptitle("AuthCore's paired ratios\n" + subtitle(document), fontsize=LABEL_PT + 1, x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(target, metadata={"Date": None})  # no date: the same report draws the same file
    plt.close(fig)
    return len(drawn)


def draw_medians(plt, document, rows, mapping, target):
    comparisons_of = {}
    for comparison in mapping["comparisons"]:
        if comparison["kind"] in ("C twin", "C floor", "Python peer"):
            comparisons_of.setdefault(comparison["row"], []).append(comparison)
    targets = {t["row"]: t for t in mapping["absolute_targets"]}
    panels = []
    for family in mapping["families"]:
        bars = []
        for name in family["rows"]:
            if name not in rows or rows[name]["median"] <= 0:
                continue
            bars.append((name, rows[name], "AuthCore"))
            for comparison in comparisons_of.get(name, []):
                other = rows.get(comparison["against"])
                if other and other["median"] > 0 and all(other is not b[1] for b in bars):
                    bars.append((other["name"], other, comparison["kind"]))
        if bars:
            panels.append((family["title"], bars))
    if not panels:
        return 0
    heights = [0.36 * len(bars) + 0.9 for _, bars in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, sum(heights) + 1.2), gridspec_kw={"height_ratios": heights}, squeeze=False)
    colours = dict(COLOURS, AuthCore="#1f6feb")
    for ax, (title, bars) in zip(axes[:, 0], panels):
        values = [row["median"] for _, row, _ in bars] + [targets[n]["ns"] for n, _, _ in bars if n in targets]
        uppers = [row.get("p90", row["median"]) for _, row, _ in bars]
        logarithmic = max(values) / min(values) > 20
        for index, (name, row, kind) in enumerate(bars):
            y = len(bars) - 1 - index
            low, high = row.get("p10", row["median"]), row.get("p90", row["median"])
            ax.barh(y, row["median"], height=0.62, color=colours.get(kind, "#8b949e"), label=kind)
            ax.errorbar(row["median"], y, xerr=[[row["median"] - low], [high - row["median"]]], fmt="none", ecolor="#24292f", capsize=2, linewidth=0.8)
            caption = format_ns(row["median"])
            if name in targets:
                ax.plot([targets[name]["ns"]] * 2, [y - 0.4, y + 0.4], color=TARGET_COLOUR, linewidth=2.2, label="target")
                caption += "; target %s (%s)" % (format_ns(targets[name]["ns"]), targets[name]["source"])
            end = max(high, targets[name]["ns"] if name in targets else 0)
            ax.text(end * 1.12 if logarithmic else end + max(uppers) * 0.02, y, caption, va="center", fontsize=CAPTION_PT)
        ax.set_yticks(range(len(bars)))
        ax.set_yticklabels([name for name, _, _ in reversed(bars)], fontsize=LABEL_PT)
        widest = max(uppers + values)
        if logarithmic:
            ax.set_xscale("log")
            low = min(values) / 1.5
            ax.set_xlim(low, widest * (widest / low) ** 0.55)  # the captions need about a third of the width
        else:
            ax.set_xlim(0, widest * 1.7)
        duration_axis(ax, plt)
        ax.tick_params(axis="x", labelsize=CAPTION_PT)
        ax.set_title(title + (" (log axis)" if logarithmic else ""), fontsize=LABEL_PT, loc="left")
    axes[-1, 0].set_xlabel("median time per operation; whiskers p10-p90", fontsize=LABEL_PT)
    handles, names = [], []
    for ax in axes[:, 0]:
        h, n = ax.get_legend_handles_labels()
        handles += h
        names += n
    unique = dict(zip(names, handles))
    fig.legend(unique.values(), unique.keys(), loc="upper right", fontsize=CAPTION_PT, ncol=len(unique))
    fig.suptitle("AuthCore's medians\n" + subtitle(document), fontsize=LABEL_PT + 1, x=0.02, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(target, metadata={"Date": None})  # no date: the same report draws the same file
    plt.close(fig)
    return sum(len(bars) for _, bars in panels)


def read_rows(path):
    with open(path) as f:
        document = json.load(f)
    return document, {r["name"]: r for r in document["results"]}


def main(argv):
    if len(argv) >= 3 and argv[1] == "--check-mapping":
        document, rows = read_rows(argv[2])
        listed = []
        if len(argv) > 3:
            with open(argv[3]) as f:
                listed = [line.split("  (")[0].strip() for line in f if line.strip()]
        problems = mapping_problems(load_mapping(), list(rows.values()), listed)
        for problem in problems:
            print("bench_plot: " + problem)
        if problems:
            return 1
        print("bench_plot: every C twin, Python peer and paired row of %d rows%s has its comparison" % (
            len(rows), " and %d listed benchmarks" % len(listed) if listed else ""))
        return 0
    if len(argv) != 3:
        print(__doc__.split("Usage:")[1], file=sys.stderr)
        return 2
    import matplotlib

    matplotlib.use("svg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text
    matplotlib.rcParams["svg.hashsalt"] = "authcore"  # the same report draws the same file
    import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

    document, rows = read_rows(argv[1])
    mapping = load_mapping()
    os.makedirs(argv[2], exist_ok=True)
    ratios = draw_ratios(plt, document, rows, mapping, os.path.join(argv[2], "ratios.svg"))
    # A comparison of a row only some processors run is not owed by a run from one that does not.
    absent = set(mapping.get("processor_dependent_rows", [])) - set(rows)
    owed = [c for c in mapping["comparisons"] if not {c["row"], c["against"]} & absent]
    missing = len(owed) - ratios
    if missing:
        print("bench_plot: %d comparisons not drawn: the report lacks one of their rows" % missing)
    medians = draw_medians(plt, document, rows, mapping, os.path.join(argv[2], "medians.svg"))
    if not ratios and not medians:
        print("bench_plot: %s has no rows to draw" % argv[1], file=sys.stderr)
        return 1
    print("bench_plot: wrote %s/ratios.svg (%d comparisons) and %s/medians.svg (%d rows)" % (argv[2], ratios, argv[2], medians))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
