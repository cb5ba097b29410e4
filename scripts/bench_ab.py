#!/usr/bin/env python3
"""make bench-ab: the working tree's benchmarks against another commit's, interleaved.

One `authcore-bench` run cannot tell a 3% change from this machine's noise: on a shared 2-core VM
the same binary's paired ratios spread by about ±0.05 from run to run, and a quiet state and a slow
state alternate over minutes. A sequential before/after (`--baseline FILE`) compares runs made in
different states. This tool builds the base commit's release benchmark in its own clone, then runs
the two binaries alternately, in ABBA order (so a drift over the session weighs on both alike), and
reports per row the median over runs of each side's median and of its paired ratio, the change, and
in how many rounds the working tree was the faster side.

Usage: scripts/bench_ab.py --bench BIN [--base REV] [--runs N] [--filter SUBSTRING]
  --bench BIN   the working tree's release authcore-bench (make builds it first)
  --base REV    the commit to compare with (default HEAD: the tree's uncommitted change)
  --runs N      rounds; each runs both binaries once (default 6)
  --filter S    the rows to run, as authcore-bench --filter (default sign.get)

The base build lives in .build/bench-ab/<commit> and is reused. No timing is asserted: this prints.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kwargs):
    return subprocess.run(cmd, check=True, **kwargs)


def base_binary(revision):
    """The release authcore-bench of `revision`, built once in its own clone."""
    commit = run(["git", "-C", ROOT, "rev-parse", "--verify", revision + "^{commit}"], capture_output=True, text=True).stdout.strip()
    home = os.path.join(ROOT, ".build", "bench-ab", commit)
    binary = os.path.join(home, ".build", "release", "authcore-bench")
    if not os.path.exists(binary):
        if not os.path.isdir(os.path.join(home, ".git")):
            os.makedirs(os.path.dirname(home), exist_ok=True)
            run(["git", "clone", "--quiet", ROOT, home])
        run(["git", "-C", home, "checkout", "--quiet", commit])
        print(f"bench-ab: building the release benchmark of {commit[:12]} (once)", flush=True)
        run(["swift", "build", "-c", "release", "--product", "authcore-bench"], cwd=home, stdout=subprocess.DEVNULL)
    return commit, binary


def measure(binary, filter_text):
    """One run's rows: name -> (median ns, paired ratio or None)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        run([binary, "--filter", filter_text, "--json", out.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out.name) as written:
            results = json.load(written)["results"]
    return {row["name"]: (row["median"], row.get("paired_ratio")) for row in results if "median" in row}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--base", default="HEAD")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--filter", default="sign.get")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not os.path.exists(args.bench):
        parser.error(f"no benchmark binary at {args.bench}")
    try:
        commit, base = base_binary(args.base)
    except subprocess.CalledProcessError as error:
        sys.exit(f"bench-ab: cannot build the base '{args.base}' ({' '.join(error.cmd)} exited {error.returncode})")
    sides = {"base": base, "tree": args.bench}
    samples = {"base": [], "tree": []}
    for round_index in range(args.runs):
        order = ["base", "tree"] if round_index % 2 == 0 else ["tree", "base"]  # ABBA
        for side in order:
            try:
                samples[side].append(measure(sides[side], args.filter))
            except subprocess.CalledProcessError as error:
                sys.exit(f"bench-ab: the {side} benchmark failed (exit {error.returncode}): {sides[side]}")
        print(f"bench-ab: round {round_index + 1}/{args.runs}", file=sys.stderr, flush=True)

    rows = [name for name in samples["tree"][0] if all(name in run_ for run_ in samples["base"] + samples["tree"])]
    if not rows:
        sys.exit(f"bench-ab: no row matching '{args.filter}' ran on both sides")
    print(f"bench-ab: the working tree against {commit[:12]}, {args.runs} interleaved rounds (ABBA), filter '{args.filter}'")
    print(f"{'row':<34} {'base':>10} {'tree':>10} {'change':>8} {'faster':>7}   paired ratio base -> tree")
    for name in rows:
        base_medians = [run_[name][0] for run_ in samples["base"]]
        tree_medians = [run_[name][0] for run_ in samples["tree"]]
        base_median = statistics.median(base_medians)
        tree_median = statistics.median(tree_medians)
        change = (tree_median / base_median - 1) * 100 if base_median else 0.0
        ratio_text = ""
        base_ratios = [run_[name][1] for run_ in samples["base"] if run_[name][1] is not None]
        tree_ratios = [run_[name][1] for run_ in samples["tree"] if run_[name][1] is not None]
        # Rounds the tree won: by the paired ratio where the row has one (it cancels the machine's
        # state, which moves a median by tens of percent between runs), else by the median.
        if len(base_ratios) == len(tree_ratios) == args.runs:
            faster = sum(1 for b, t in zip(base_ratios, tree_ratios) if t < b)
        else:
            faster = sum(1 for b, t in zip(base_medians, tree_medians) if t < b)
        if base_ratios and tree_ratios:
            ratio_text = (f"{statistics.median(base_ratios):.3f} ({min(base_ratios):.2f}-{max(base_ratios):.2f}) -> "
                          f"{statistics.median(tree_ratios):.3f} ({min(tree_ratios):.2f}-{max(tree_ratios):.2f})")
        print(f"{name:<34} {base_median:>8.0f}ns {tree_median:>8.0f}ns {change:>+7.1f}% {faster:>3}/{args.runs}   {ratio_text}")
    print("faster: rounds the tree won, by the paired ratio where the row has one (a C twin's is engine/twin), else by the median.")
    print("The medians follow the machine's state from run to run; the paired ratios, sampled alternately within one run, do not.")


if __name__ == "__main__":
    main()
