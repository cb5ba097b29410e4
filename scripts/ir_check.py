#!/usr/bin/env python3
"""make ir-check: instructions per signature, gated (a deterministic count, not a timing).

Runs each signing row of the release `authcore-bench` under callgrind for exactly N iterations
(`--profile ROW --iterations N`: one call not counted, then one call of N, the only code between
the `*profileLoop*` toggles) and divides the instructions (Ir) by N. The figure is the count
outside libcrypto: OpenSSL's SHA-256 takes another code path under valgrind (no SHA-NI), and the
hashing is the same calls as the rows' C twins, which are counted beside them. Everything else is
counted: AuthCore, the Swift runtime, libc's malloc and memcpy.

The counts are the same on every run of the same binary (hashing seeded with
SWIFT_DETERMINISTIC_HASHING, one thread, a fixed iteration count), so each row has its figure
written down here, with 2 % either side for the heap's state: a row above it fails (the signing
path got more expensive), and so does a row below it (lower the figure, so the gate keeps what
was won). The C twins' figures are the floor the issue's ratios are measured against.

A binary's DWARF 5 sections are stripped from a copy first (Valgrind 3.19 cannot read them).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_costs import split_costs  # noqa: E402

BENCH = os.environ.get("AUTHCORE_BENCH", ".build/release/authcore-bench")
OUT = ".build/ir-check"
TOLERANCE = 0.02
LIBCRYPTO = re.compile(r"\[/[^\]]*/libcrypto\.so[^\]]*\]$")

# row -> (iterations counted, instructions per iteration outside libcrypto)
BUDGETS = {
    "sigv4.sign.get": (2000, 7400),            # issue 42's table: 7,617 at stop 56, 7,454 at stop 57
    "c.sigv4.sign.get": (2000, 766),           # its C twin: the hashing calls only
    "sigv4.sign.get.token": (2000, 9073),
    "sigv4.sign.get.cold": (500, 17010),       # 19,581 at stop 56, 19,198 at stop 57, 18,629 at stop 61, 18,474 at stop 62
    "c.sigv4.sign.get.cold": (500, 1620),
    "oss.v4.sign.get": (2000, 9695),           # 12,205 at stop 57: header, method, bucket and key checks walked the UTF-8 views
    "aliyun.acs3.assume-role": (2000, 14921),  # 22,301 at stop 57: EVP's SHA-256 and HMAC, header checks on the views
    "aliyun.rpc.assume-role": (2000, 19808),   # 26,006 before stop 58's encoder, pair sort, pair copies and timestamp digits; 21,944 before stop 63's temporary blocks
}


def stripped_binary():
    """A copy of the benchmark binary without debug sections."""
    os.makedirs(OUT, exist_ok=True)
    copy = os.path.join(OUT, "authcore-bench")
    shutil.copyfile(BENCH, copy)
    os.chmod(copy, 0o755)
    subprocess.run(["strip", "-g", copy], check=True)
    return copy


def instructions(binary, row, iterations):
    """Ir per iteration of `row`: (outside libcrypto, inside libcrypto)."""
    out_file = os.path.join(OUT, f"{row}.out")
    environment = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--toggle-collect=*profileLoop*", f"--callgrind-out-file={out_file}",
         binary, "--profile", row, "--iterations", str(iterations)],
        env=environment, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"ir-check {row}: authcore-bench exited {run.returncode} under callgrind:\n{run.stderr[-2000:]}")
    total, crypto = split_costs(out_file, LIBCRYPTO)
    if not total:
        raise SystemExit(f"ir-check {row}: no costs in {out_file} (was the profile loop reached?)")
    return (total - crypto) / iterations, crypto / iterations


def main():
    binary = stripped_binary()
    failed = False
    counted = {}
    for row, (iterations, budget) in BUDGETS.items():
        outside, inside = instructions(binary, row, iterations)
        counted[row] = outside
        low, high = budget * (1 - TOLERANCE), budget * (1 + TOLERANCE)
        ok = low <= outside <= high
        failed |= not ok
        verdict = "" if ok else ("  FAILED: more than written here" if outside > high else "  FAILED: fewer than written here: lower the figure")
        print(f"ir-check {row}: {outside:,.0f} instructions per iteration outside libcrypto, {inside:,.0f} inside (expected {budget:,}){verdict}")
    for row in ("sigv4.sign.get", "sigv4.sign.get.cold"):
        twin = counted.get("c." + row)
        if twin:
            print(f"ir-check {row}: {counted[row] / twin:.1f}x its C twin's instructions outside libcrypto")
    print("ir-check: FAILED" if failed else "ir-check: every signing row takes the instructions written down for it")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
