#!/usr/bin/env python3
"""make alloc-check: heap allocations per signature, gated (a deterministic count, not a timing).

Runs the release `authcore-bench --quick` over the signing rows and reads the `allocations` each row
reports (the benchmark binary's interposed malloc, counted over one untimed pass on the one thread
that runs it: the same figure on every run for the same code). Each row has its count, written
down here: a row that allocates more, or less (lower the figure then), or reports no count, fails
the check (exit 1), so an allocation added to a signing path is caught by `make test` rather than
by the next benchmark table. The rows check that their operation succeeds before they are timed
(SigningBenchmarks.swift), so an error path cannot pass for a signature.
"""
import json
import os
import subprocess
import sys
import tempfile

BENCH = os.environ.get("AUTHCORE_BENCH", ".build/release/authcore-bench")
# row -> allocations per iteration, exactly
BUDGETS = {
    "sigv4.sign.get": 2,             # the X-Amz-Date/Authorization header array and the Authorization string
    "sigv4.sign.get.token": 3,       # the same, the header array with room for the token header
    "sigv4.sign.get.cold": 11,       # a new signer (its storage and scoped keys one object: 12 before), an empty key cache (two: its object and its lock): derivation and the cache entry (its schedule one object: 13 before)
    "sigv4.sign.get.cold.token": 14, # the same with a token: its copy (object and bytes) and the warm path's one more
    "sigv4.presign": 9,              # 10 before stop 63: the re-encoded query's pairs are encoded into a temporary block
    "sigv4.sign.put.1KiB": 3,
    "oss.v4.sign.get": 3,
    "aliyun.rpc.assume-role": 7,     # the parameter list, the timestamp (bytes, string), the canonical query (pairs, result; its encoding buffer a temporary block since stop 63), the string to sign, the Base64 signature (34 before)
}
FILTERS = ["sigv4.sign.get", "sigv4.presign", "sigv4.sign.put", "oss.v4.sign.get", "aliyun.rpc"]


def main():
    found = {}
    for substring in FILTERS:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            run = subprocess.run([BENCH, "--quick", "--filter", substring, "--json", out.name], capture_output=True, text=True)
            if run.returncode != 0:
                print(run.stdout + run.stderr)
                print(f"alloc-check: authcore-bench --filter {substring} exited {run.returncode}")
                return 1
            for row in json.load(open(out.name))["results"]:
                if "allocations" in row:
                    found[row["name"]] = row["allocations"]
    failed = False
    for name, budget in BUDGETS.items():
        count = found.get(name)
        if count is None:
            print(f"alloc-check {name}: no allocation count reported (counting unsupported here?)")
            failed = True
            continue
        ok = abs(count - budget) < 0.005
        failed |= not ok
        verdict = "" if ok else ("  FAILED: more than before" if count > budget else "  FAILED: fewer than written here: lower the figure")
        print(f"alloc-check {name}: {count:g} allocations per iteration (expected {budget}){verdict}")
    print("alloc-check: FAILED" if failed else "alloc-check: every signing row makes the allocations written down for it")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
