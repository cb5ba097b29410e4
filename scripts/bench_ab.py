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
  --swift PATH  the compiler for the base (default $SWIFT, else swift: the one that built --bench)

The base build lives in .build/bench-ab/<commit> and is reused. No timing is asserted: this prints.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kwargs):
    return subprocess.run(cmd, check=True, **kwargs)


def fail(message, error=None):
    """Exits 1 with `message` and the end of the failing command's stderr."""
    detail = ""
    if isinstance(error, subprocess.CalledProcessError) and error.stderr:  # every command here runs with text=True
        detail = "\n  " + "\n  ".join(error.stderr.strip().splitlines()[-5:])
    sys.exit(f"bench-ab: {message}{detail}")


def base_binary(revision, swift):
    """The release authcore-bench of `revision`, built once in its own clone.

    The clone is made under a temporary name and renamed when complete, and a stamp is written after
    a successful build: an interrupted earlier run leaves nothing that looks finished.
    """
    try:
        commit = run(["git", "-C", ROOT, "rev-parse", "--verify", revision + "^{commit}"], capture_output=True, text=True).stdout.strip()
    except subprocess.CalledProcessError as error:
        fail(f"'{revision}' is not a commit of this repository", error)
    home = os.path.join(ROOT, ".build", "bench-ab", commit)
    binary = os.path.join(home, ".build", "release", "authcore-bench")
    stamp = os.path.join(home, ".bench-ab-built")
    if os.path.exists(stamp) and os.path.exists(binary):
        return commit, binary
    try:
        if not os.path.isdir(os.path.join(home, ".git")):
            partial = home + ".partial"
            shutil.rmtree(partial, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
            os.makedirs(os.path.dirname(home), exist_ok=True)
            # --shared: every object of this repository, so any commit it has (not only a branch's).
            run(["git", "clone", "--quiet", "--shared", "--no-checkout", ROOT, partial], capture_output=True, text=True)
            os.rename(partial, home)
        run(["git", "-C", home, "checkout", "--quiet", "--force", commit], capture_output=True, text=True)
        print(f"bench-ab: building the release benchmark of {commit[:12]} (once)", flush=True)
        run([swift, "build", "-c", "release", "--product", "authcore-bench"], cwd=home, capture_output=True, text=True)
    except subprocess.CalledProcessError as error:
        fail(f"cannot build the base {commit[:12]} ({' '.join(error.cmd)} exited {error.returncode})", error)
    except OSError as error:
        fail(f"cannot build the base {commit[:12]}: {error}")
    open(stamp, "w").close()
    return commit, binary


def measure(binary, filter_text):
    """One run's rows: name -> (median ns, paired ratio or None)."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "run.json")
        run([binary, "--filter", filter_text, "--json", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        with open(path) as written:
            results = json.load(written)["results"]
    return {row["name"]: (row["median"], row.get("paired_ratio")) for row in results if "median" in row}


def column(runs, name, field):
    """Row `name`'s `field` (0: median, 1: paired ratio) in each run that has it."""
    return [run_[name][field] for run_ in runs if run_[name][field] is not None]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--base", default="HEAD")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--filter", default="sign.get")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"), help="the compiler that built --bench")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not os.path.exists(args.bench):
        parser.error(f"no benchmark binary at {args.bench}")
    if args.runs % 2:
        print("bench-ab: an odd number of rounds runs the base first once more than the tree", file=sys.stderr)
    commit, base = base_binary(args.base, args.swift)
    sides = {"base": base, "tree": args.bench}
    samples = {"base": [], "tree": []}
    for round_index in range(args.runs):
        order = ["base", "tree"] if round_index % 2 == 0 else ["tree", "base"]  # ABBA
        for side in order:
            try:
                samples[side].append(measure(sides[side], args.filter))
            except subprocess.CalledProcessError as error:
                fail(f"the {side} benchmark failed (exit {error.returncode}): {sides[side]}", error)
            except (OSError, ValueError, KeyError) as error:
                fail(f"the {side} benchmark's results could not be read: {error}")
        print(f"bench-ab: round {round_index + 1}/{args.runs}", file=sys.stderr, flush=True)

    rows = [name for name in samples["tree"][0] if all(name in run_ for run_ in samples["base"] + samples["tree"])]
    dropped = sorted({name for run_ in samples["base"] + samples["tree"] for name in run_} - set(rows))
    if not rows:
        sys.exit(f"bench-ab: no row matching '{args.filter}' ran on both sides")
    if dropped:
        print(f"bench-ab: rows not on both sides in every round, left out: {', '.join(dropped)}")
    print(f"bench-ab: the working tree against {commit[:12]}, {args.runs} interleaved rounds (ABBA), filter '{args.filter}'")
    print(f"{'row':<34} {'base':>10} {'tree':>10} {'change':>8} {'faster':>7}{'':<8} paired ratio base -> tree")
    for name in rows:
        base_medians, tree_medians = column(samples["base"], name, 0), column(samples["tree"], name, 0)
        base_median = statistics.median(base_medians)
        tree_median = statistics.median(tree_medians)
        change = (tree_median / base_median - 1) * 100 if base_median else 0.0
        ratio_text = ""
        base_ratios, tree_ratios = column(samples["base"], name, 1), column(samples["tree"], name, 1)
        # Rounds the tree won: by the paired ratio where the row has one (it cancels the machine's
        # state, which moves a median by tens of percent between runs), else by the median.
        pairs = list(zip(base_ratios, tree_ratios)) if len(base_ratios) == len(tree_ratios) == args.runs else list(zip(base_medians, tree_medians))
        faster = sum(1 for b, t in pairs if t < b)
        ties = sum(1 for b, t in pairs if t == b)
        if base_ratios and tree_ratios:
            ratio_text = (f"{statistics.median(base_ratios):.3f} ({min(base_ratios):.2f}-{max(base_ratios):.2f}) -> "
                          f"{statistics.median(tree_ratios):.3f} ({min(tree_ratios):.2f}-{max(tree_ratios):.2f})")
        print(f"{name:<34} {base_median:>8.0f}ns {tree_median:>8.0f}ns {change:>+7.1f}% {faster:>3}/{args.runs}{'' if not ties else f' ({ties} tie)':<8} {ratio_text}")
    print("faster: rounds the tree won, by the paired ratio where the row has one (a C twin's is engine/twin), else by the median.")
    print("The medians follow the machine's state from run to run; the paired ratios, sampled alternately within one run, do not.")


if __name__ == "__main__":
    main()
