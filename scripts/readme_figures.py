#!/usr/bin/env python3
"""The README's benchmark figures, generated from the committed run (docs/bench/results.json).

The README types no benchmark figure: each sits in a block between
`<!-- figures:NAME:begin ... -->` and `<!-- figures:NAME:end -->`, written by this script from the
report and the comparisons of scripts/bench_comparisons.json. `make bench` rewrites the blocks after
its run (--write); `make test` checks that they are what the committed report gives (--check), so a
figure edited by hand or a report committed without its README fails.

Blocks:
  headline     one paragraph under the two commands: the run's machine and commit, and the figures
               a newcomer asks first (a SigV4 signature, a Cognito login, an SRP handshake, the
               server's CPU per login), each with its comparison
  bench-table  the comparison table, as `authcore-bench --from REPORT` prints it

Usage: python3 scripts/readme_figures.py --check|--write [--bench BINARY] [--report FILE] [README.md]
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_plot import comparison_ratio, format_ns, load_mapping  # noqa: E402

BLOCK = re.compile(r"(<!-- figures:(?P<name>[\w-]+):begin[^>]*-->\n)(?P<body>.*?)(<!-- figures:(?P=name):end -->)", re.S)


def ratio_of(mapping, rows, row, against):
    for comparison in mapping["comparisons"]:
        if comparison["row"] == row and comparison["against"] == against:
            found = comparison_ratio(comparison, rows)
            return found[0] if found else None
    raise SystemExit("readme_figures: no comparison %s / %s in bench_comparisons.json" % (row, against))


def headline(document, rows, mapping):
    environment = document.get("environment", {})
    parts = []
    sign = rows.get("sigv4.sign.get")
    if sign:
        text = "a warm SigV4 header signature takes **%s**" % format_ns(sign["median"])
        extras = []
        floor = ratio_of(mapping, rows, "sigv4.sign.get", "c.sigv4.sign.get")
        if floor:
            extras.append("%.2f× the same calls in plain C" % floor)
        python = ratio_of(mapping, rows, "sigv4.sign.get", "py.sigv4.sign.get")
        if python:
            extras.append("%.0f× faster than botocore" % (1 / python))
        parts.append(text + (" (%s)" % ", ".join(extras) if extras else ""))
    login = rows.get("cognito.login.client")
    if login:
        text = "a Cognito SRP sign-in's client math **%s**" % format_ns(login["median"])
        python = ratio_of(mapping, rows, "cognito.login.client", "py.cognito.login.client")
        parts.append(text + (" (%.0f× faster than pycognito)" % (1 / python) if python else ""))
    handshake = rows.get("srp.handshake.3072.sha256")
    if handshake:
        parts.append("a 3072-bit SRP-6a handshake, client and server, **%s**" % format_ns(handshake["median"]))
    server = rows.get("server.srp.login.3072.cpu")
    if server:
        parts.append("the app server spends **%s** of CPU per login" % format_ns(server["median"]))
    if not parts:
        raise SystemExit("readme_figures: the report has none of the headline rows")
    sentence = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    return ("Measured by `make bench` on %s (commit %s, %s; the whole run: `docs/bench/results.json`, "
            "pictured in `docs/bench/`): %s.\n" % (
                document.get("machine", "?"), environment.get("commit", "?"), str(environment.get("date", "?"))[:10], sentence))


def bench_table(binary, report):
    # Named from the repository's top, so the table's first line is the same in every clone.
    run = subprocess.run([os.path.abspath(binary), "--from", os.path.relpath(report, ROOT)], capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        raise SystemExit("readme_figures: %s --from %s exited %d: %s" % (binary, report, run.returncode, run.stderr.strip()))
    return "```\n" + run.stdout.rstrip("\n") + "\n```\n"


def main(argv):
    args = argv[1:]
    mode = None
    binary = os.path.join(ROOT, ".build", "debug", "authcore-bench")
    report = os.path.join(ROOT, "docs", "bench", "results.json")
    readme = os.path.join(ROOT, "README.md")
    while args:
        argument = args.pop(0)
        if argument in ("--check", "--write"):
            mode = argument
        elif argument == "--bench" and args:
            binary = args.pop(0)
        elif argument == "--report" and args:
            report = args.pop(0)
        elif not argument.startswith("--"):
            readme = argument
        else:
            print(__doc__.split("Usage:")[1], file=sys.stderr)
            return 2
    if mode is None:
        print(__doc__.split("Usage:")[1], file=sys.stderr)
        return 2
    with open(report) as f:
        document = json.load(f)
    rows = {r["name"]: r for r in document["results"]}
    mapping = load_mapping()
    generators = {
        "headline": lambda: headline(document, rows, mapping),
        "bench-table": lambda: bench_table(binary, report),
    }
    text = open(readme, encoding="utf-8").read()
    found = [m.group("name") for m in BLOCK.finditer(text)]
    missing = [name for name in generators if name not in found]
    unknown = [name for name in found if name not in generators]
    if missing or unknown:
        print("readme_figures: %s: blocks missing %s, unknown %s" % (os.path.relpath(readme, ROOT), missing, unknown), file=sys.stderr)
        return 1
    fresh = BLOCK.sub(lambda m: m.group(1) + generators[m.group("name")]() + m.group(4), text)
    if mode == "--write":
        if fresh != text:
            with open(readme, "w", encoding="utf-8") as f:
                f.write(fresh)
        print("readme_figures: %s: %d blocks written from %s" % (os.path.relpath(readme, ROOT), len(found), os.path.relpath(report, ROOT)))
        return 0
    if fresh != text:
        stale = [m.group("name") for m in BLOCK.finditer(text) if generators[m.group("name")]() != m.group("body")]
        print("readme_figures: %s: the blocks %s are not what %s gives; run `make bench`, or "
              "`python3 scripts/readme_figures.py --write` after committing a run" % (
                  os.path.relpath(readme, ROOT), ", ".join(stale), os.path.relpath(report, ROOT)), file=sys.stderr)
        return 1
    print("readme_figures: %s: %d figure blocks match %s" % (os.path.relpath(readme, ROOT), len(found), os.path.relpath(report, ROOT)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
