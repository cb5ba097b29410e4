#!/usr/bin/env python3
"""One screen at the end of `make test`: what ran, with its count and time, read from the run's log.

The log is `make test`'s own output (the Makefile tees it to .build/make-test.log); each step of the
run is bracketed by a `step-time NAME SECONDS STATUS` line the Makefile writes. A step that failed is
named, with the last lines it printed.

Usage: python3 scripts/test_summary.py LOG STATUS SECONDS
"""
import re
import sys


def count_lines(lines, pattern):
    return [m for m in (re.search(pattern, line) for line in lines) if m]


def step_lines(lines):
    """The log's lines grouped by the step that printed them."""
    steps, current = [], []
    for line in lines:
        match = re.match(r"step-time (\S+) (\d+) (\d+)$", line)
        if match:
            steps.append((match.group(1), int(match.group(2)), int(match.group(3)), current))
            current = []
        else:
            current.append(line)
    return steps, current


def describe(name, lines):
    """What a step did, from its lines."""
    if name == "unit" or name == "integration":
        runs = count_lines(lines, r"Test run with (\d+) tests? in (\d+) suites? (passed|failed) after ([\d.]+) seconds")
        if runs:
            run = runs[-1]
            issues = count_lines(lines, r"with (\d+) issues?")
            return "%s tests in %s suites %s%s" % (run.group(1), run.group(2), run.group(3), (", %s issues" % issues[-1].group(1)) if run.group(3) == "failed" and issues else "")
    if name == "vectors":
        files = count_lines(lines, r"^(PASS|FAIL) \S+ \((\d+) cases?\)")
        failed = sum(1 for f in files if f.group(1) == "FAIL")
        return "%d cases in %d files%s" % (sum(int(f.group(2)) for f in files), len(files), ", %d files failed" % failed if failed else "")
    if name == "docs":
        return "%d catalogues without warnings" % len(count_lines(lines, r"^docs: \S+: no warnings"))
    if name == "doc-blocks":
        blocks = count_lines(lines, r"^readme-tour: (\d+) blocks of (\S+)")
        return "%d Swift blocks type-check in %d documents" % (sum(int(b.group(1)) for b in blocks), len(blocks))
    if name == "fuzz-replay":
        inputs = count_lines(lines, r"^fuzz-replay: \S+: (\d+) inputs, clean")
        return "%d targets, %d inputs, clean under ASan" % (len(inputs), sum(int(i.group(1)) for i in inputs))
    if name == "ctgrind":
        flows = count_lines(lines, r"^ctgrind (\S+): (\d+) reports")
        clean = [f for f in flows if not f.group(1).startswith("control")]
        return "%d flows, %d with reports; %d controls caught" % (
            len(clean), sum(1 for f in clean if f.group(2) != "0"), sum(1 for f in flows if f.group(1).startswith("control") and f.group(2) != "0"))
    if name == "ct-count":
        equal = count_lines(lines, r"^ct-count [\w@-]+: equal Ir")
        return "%d operations take equal instructions per class; %d controls differ" % (len(equal), len(count_lines(lines, r"^ct-count control")))
    if name == "dudect":
        return "%d operations without a leak; %d controls caught" % (
            len(count_lines(lines, r"^dudect (?!control)\S+: .*no leak found")), len(count_lines(lines, r"^dudect control\S*: .*caught")))
    if name == "zeroize-check":
        return "%d wiping checks" % len(count_lines(lines, r"^zeroize-check "))
    if name == "stack-scrub":
        clean, in_control = 0, False
        for line in lines:
            if line.startswith("stack-scrub: the control build"):
                in_control = True
            elif line.startswith("stack-scrub, built"):
                in_control = False
            elif not in_control and re.match(r"^stack-scrub \S+: 0 secret-dependent bytes", line):
                clean += 1
        return "%d kernel entry points leave no secret on the stack (-O0, -O2); %d controls caught" % (
            clean, len(count_lines(lines, r"^stack-scrub: the control caught")))
    if name == "alloc-check":
        return "%d signing rows at their allocation budget" % len(count_lines(lines, r"^alloc-check \S+: \d+ allocations"))
    if name == "bench-report":
        report = count_lines(lines, r"^bench-report: (\d+) rows .* github-action-benchmark (\d+) entries and Bencher (\d+) benchmarks .* of (\d+) listed")
        if report:
            r = report[-1]
            return "exports valid (%s + %s entries); %s benchmarks mapped; README figures match" % (r.group(2), r.group(3), r.group(4))
    last = [line for line in lines if line.strip()]
    return last[-1][:90] if last else ""


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    lines = open(argv[1], encoding="utf-8", errors="replace").read().splitlines()
    status, seconds = int(argv[2]), int(argv[3])
    steps, rest = step_lines(lines)
    print("")
    print("make test: %s in %d min %02d s" % ("passed" if status == 0 else "FAILED", seconds // 60, seconds % 60))
    for name, took, step_status, printed in steps:
        mark = "ok  " if step_status == 0 else "FAIL"
        print("  %s %-14s %5d s  %s" % (mark, name, took, describe(name, printed)))
        if step_status != 0:
            for line in [l for l in printed if l.strip()][-8:]:
                print("         | " + line[:110])
    if status != 0 and rest:
        print("  %s:" % ("after the last step" if steps else "in the set-up or the build, before any step"))
        for line in [l for l in rest if l.strip()][-8:]:
            print("         | " + line[:110])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
