#!/usr/bin/env python3
"""make test's check of what authcore-bench reports and what is drawn and quoted from it.

1. A short real run (`--quick --filter sigv4.sign.get`: engine rows, C twins and floors, paired Swift
   rows and the botocore peer) writes the native report; its percentiles are ordered
   (p10 <= p25 <= median <= p75 <= p90 <= p99) on every row.
2. `--from` converts it to the github-action-benchmark and Bencher exports; each is validated against
   the tool's schema (scripts/schemas/) with jsonschema, and its values are the native report's:
   every row's median, every paired ratio. A schema that accepted anything would pass both, so each
   schema must also refuse a broken document.
3. Every C twin, Python peer and paired row of the run, of the committed report and of
   `authcore-bench --list` has its comparison in scripts/bench_comparisons.json (and an extra
   unmapped C row makes the check fail).
4. The pictures are drawn from the run: both SVGs exist, keep their text as text (the row names are
   searchable), and no label is below 9 pt. The committed run (docs/bench/results.json) has both rows
   of every comparison, and the committed pictures carry the text it draws.
5. The README's figure blocks are what the committed report gives (scripts/readme_figures.py --check).

Usage: .venv/bin/python scripts/test_bench_report.py [--bench .build/debug/authcore-bench]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_plot import load_mapping, mapping_problems  # noqa: E402

COMMITTED = os.path.join(ROOT, "docs", "bench", "results.json")


def fail(message):
    print("bench-report: FAIL " + message)
    sys.exit(1)


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, **kwargs)
    if result.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(command), result.returncode, result.stderr.strip()[-800:]))
    return result.stdout


def schema(name):
    with open(os.path.join(HERE, "schemas", name)) as f:
        return json.load(f)


def refused(document, against):
    try:
        jsonschema.validate(document, against)
    except jsonschema.ValidationError:
        return True
    return False


def expected_ratios(rows):
    """The paired ratios the exports must carry: name -> value, as ReportFormats.swift names them."""
    ratios = {}
    for row in rows:
        if row.get("paired_ratio") is None:
            continue
        if row["name"].startswith("c."):
            engine = row.get("paired_with") or row["name"][2:]
            ratios["%s / %s" % (engine, row["name"])] = row["paired_ratio"]
        elif row.get("paired_with"):
            ratios["%s / %s" % (row["name"], row["paired_with"])] = row["paired_ratio"]
    return ratios


def check_native(rows):
    spread = 0
    for row in rows:
        p = [row.get(k) for k in ("min", "p10", "p25", "median", "p75", "p90", "p99", "max")]
        if any(v is None for v in p):
            fail("%s lacks one of min, p10, p25, median, p75, p90, p99, max: %s" % (row["name"], p))
        if p != sorted(p):
            fail("%s: percentiles out of order: %s" % (row["name"], p))
        spread += row["p25"] < row["median"] < row["p75"]
    if not spread:
        fail("no row has p25 < median < p75: the quartiles are not measured")
    by_name = {r["name"]: r for r in rows}
    for row in rows:
        # A paired ratio is engine / twin (or row / partner): near the ratio of their medians. Within
        # a factor of two: the short run's few rounds on a loaded 2-core machine put the two as far as
        # 0.667 apart (a debug build's cold SigV4 row against its EVP twin), and the check is for a
        # ratio computed against the wrong row, which is off by more.
        if row.get("paired_ratio") is None:
            continue
        if row["name"].startswith("c."):
            slow, fast = by_name[row.get("paired_with") or row["name"][2:]], row
        else:
            slow, fast = row, by_name[row["paired_with"]]
        medians = slow["median"] / fast["median"]
        if not 0.5 < row["paired_ratio"] / medians < 2.0:
            fail("%s: paired ratio %s, but %s / %s medians give %.3f" % (row["name"], row["paired_ratio"], slow["name"], fast["name"], medians))
    names = {r["name"] for r in rows}
    for needed in ("sigv4.sign.get", "c.sigv4.sign.get", "c.sigv4.sign.get.evp", "sigv4.sign.get.token", "py.sigv4.sign.get"):
        if needed not in names:
            fail("the short run has no %s row (rows: %s)" % (needed, sorted(names)))
    return len(rows)


def check_github_action_benchmark(document, rows):
    gab = schema("github-action-benchmark-custom.schema.json")
    jsonschema.validate(document, gab)
    if not refused([{"name": "x", "value": 1}], gab) or not refused([], gab) or not refused([{"name": "x", "value": "1", "unit": "ns"}], gab):
        fail("the github-action-benchmark schema accepts an entry without a unit, an empty file or a string value")
    entries = {}
    for entry in document:
        if entry["name"] in entries:
            fail("github-action-benchmark: %s twice" % entry["name"])
        entries[entry["name"]] = entry
    for row in rows:
        entry = entries.get(row["name"])
        if not entry or entry["unit"] != "ns" or entry["value"] != round(row["median"]):
            fail("github-action-benchmark: %s is %s, the report's median is %s ns" % (row["name"], entry, row["median"]))
    ratios = expected_ratios(rows)
    for name, value in ratios.items():
        entry = entries.get(name)
        if not entry or entry["unit"] != "ratio" or abs(entry["value"] - value) > 0.0005:
            fail("github-action-benchmark: the paired ratio %s is %s, the report's is %s" % (name, entry, value))
    if len(entries) != len(rows) + len(ratios):
        fail("github-action-benchmark: %d entries for %d rows and %d ratios" % (len(entries), len(rows), len(ratios)))
    return len(entries)


def check_bencher(document, rows):
    bmf = schema("bencher-bmf.schema.json")
    jsonschema.validate(document, bmf)
    if not refused({"x": {"latency": {"lower_value": 1}}}, bmf) or not refused({"x": {"latency": {"value": "1"}}}, bmf) or not refused({}, bmf):
        fail("the Bencher schema accepts a measure without a value, a string value or an empty file")
    for row in rows:
        latency = document.get(row["name"], {}).get("latency")
        if latency != {"value": round(row["median"]), "lower_value": round(row["p10"]), "upper_value": round(row["p90"])}:
            fail("bencher: %s latency %s, the report's median, p10 and p90 are %s, %s, %s ns" % (
                row["name"], latency, row["median"], row["p10"], row["p90"]))
    ratios = expected_ratios(rows)
    if len(document) != len(rows) + len(ratios):
        fail("bencher: %d benchmarks for %d rows and %d ratios" % (len(document), len(rows), len(ratios)))
    for name, value in ratios.items():
        measure = document.get(name, {}).get("paired-ratio")
        if not measure or abs(measure["value"] - value) > 0.0005:
            fail("bencher: the paired ratio %s is %s, the report's is %s" % (name, measure, value))
    return len(document)


def check_mapping(bench, rows, scratch):
    listing = run([bench, "--list"])
    listed = [line.split("  (")[0].strip() for line in listing.splitlines() if line.strip()]
    with open(COMMITTED) as f:
        committed = json.load(f)["results"]
    mapping = load_mapping()
    for source, source_rows, names in (("the short run", rows, listed), ("docs/bench/results.json", committed, listed)):
        problems = mapping_problems(mapping, source_rows, names)
        if problems:
            fail("%s: %s" % (source, "; ".join(problems)))
    if not mapping_problems(mapping, rows, listed + ["c.unmapped.row"]):
        fail("the mapping check accepts a C row without a comparison")
    return len(listed)


def svg_texts(path):
    return re.findall(r"<text[^>]*>(.*?)</text>", open(path, encoding="utf-8").read(), re.S)


def check_committed(scratch):
    """The committed run is whole (both rows of every comparison) and its pictures are what it draws."""
    with open(COMMITTED) as f:
        names = {r["name"] for r in json.load(f)["results"]}
    mapping = load_mapping()
    # A row only some processors run may be missing from a run on one that does not.
    optional = set(mapping.get("processor_dependent_rows", []))
    for comparison in mapping["comparisons"]:
        for name in (comparison["row"], comparison["against"]):
            if name not in names and name not in optional:
                fail("docs/bench/results.json has no %s row: commit a whole make bench run (with the venv)" % name)
    drawn = os.path.join(scratch, "committed")
    output = run([sys.executable, os.path.join(HERE, "bench_plot.py"), COMMITTED, drawn])
    if "not drawn" in output:
        fail("docs/bench/results.json: " + output.strip())
    for picture in ("ratios.svg", "medians.svg"):
        if svg_texts(os.path.join(drawn, picture)) != svg_texts(os.path.join(ROOT, "docs", "bench", picture)):
            fail("docs/bench/%s is not what docs/bench/results.json draws: run make bench, or scripts/bench_plot.py" % picture)
    return len(mapping["comparisons"])


def check_pictures(rows, scratch):
    run([sys.executable, os.path.join(HERE, "bench_plot.py"), os.path.join(scratch, "native.json"), scratch])
    for picture in ("ratios.svg", "medians.svg"):
        svg = open(os.path.join(scratch, picture), encoding="utf-8").read()
        texts = re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)
        if not texts:
            fail("%s keeps no text as text" % picture)
        if "sigv4.sign.get" not in " ".join(texts):
            fail("%s has no searchable sigv4.sign.get label" % picture)
        # matplotlib's SVG is drawn at 72 units per inch: a size in px there is the size in points.
        sizes = [float(s) for s in re.findall(r"<text[^>]*font-size: (\d+(?:\.\d+)?)px", svg)]
        if len(sizes) != len(texts) or min(sizes) < 9:
            fail("%s: a label below 9 pt (font sizes %s)" % (picture, sorted(set(sizes))))
    return 2


def main(argv):
    bench = os.path.join(ROOT, ".build", "debug", "authcore-bench")
    if len(argv) > 2 and argv[1] == "--bench":
        bench = argv[2]
    with tempfile.TemporaryDirectory() as scratch:
        native = os.path.join(scratch, "native.json")
        environment = dict(os.environ, AUTHCORE_VENV=os.path.dirname(os.path.dirname(sys.executable)))
        run([bench, "--quick", "--filter", "sigv4.sign.get", "--json", native], env=environment)
        with open(native) as f:
            rows = json.load(f)["results"]
        counts = [check_native(rows)]
        for form, check in (("github-action-benchmark", check_github_action_benchmark), ("bencher", check_bencher)):
            target = os.path.join(scratch, form + ".json")
            run([bench, "--from", native, "--format", form, "--json", target])
            with open(target) as f:
                counts.append(check(json.load(f), rows))
        counts.append(check_mapping(bench, rows, scratch))
        counts.append(check_pictures(rows, scratch))
        counts.append(check_committed(scratch))
    run([sys.executable, os.path.join(HERE, "readme_figures.py"), "--check", "--bench", bench])
    print("bench-report: %d rows with ordered percentiles; github-action-benchmark %d entries and Bencher %d benchmarks "
          "valid against their schemas and equal to the report; every C, Python and paired row of %d listed benchmarks "
          "mapped; %d pictures with text as text; the committed run has all %d comparisons and its pictures match it; "
          "the README's figure blocks match docs/bench/results.json" % tuple(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
