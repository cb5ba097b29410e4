#!/usr/bin/env python3
"""Python reference for authcore-bench: botocore's SigV4Auth.add_auth on the request of `sigv4.sign.get`.

Prints one JSON line {"name":"py.sigv4.sign.get","unit":"ns","median":…,"p10":…,"p25":…,"p75":…,"p90":…,"p99":…,"iterations":…}.
Run: .venv/bin/python scripts/bench_botocore.py [--quick]
"""
import datetime
import json
import statistics
import sys
import time

import botocore
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

import botocore.auth as auth_module

FIXED = datetime.datetime(2026, 11, 29, 22, 0, 0, tzinfo=datetime.timezone.utc)
auth_module.get_current_datetime = lambda: FIXED  # the signing time, as authcore-bench uses

credentials = Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
signer = SigV4Auth(credentials, "execute-api", "us-east-1")
headers = {
    "Host": "abc123.execute-api.us-east-1.amazonaws.com",
    "Accept": "application/json",
    "User-Agent": "authcore-bench/1.0",
    "X-Request-Id": "7f9c2d5e-8a41-4b5e-9c77-2f1e3d4c5b6a",
    "Content-Type": "application/json",
}
url = "https://abc123.execute-api.us-east-1.amazonaws.com/prod/users/42/profile?fields=name&verbose=true"


def one():
    request = AWSRequest(method="GET", url=url, headers=dict(headers), data=b"")
    signer.add_auth(request)
    return request


def main():
    quick = "--quick" in sys.argv
    samples = 7 if quick else 21
    inner = 200 if quick else 1000
    for _ in range(inner):  # warm-up
        one()
    per_call = []
    for _ in range(samples):
        start = time.perf_counter_ns()
        for _ in range(inner):
            one()
        per_call.append((time.perf_counter_ns() - start) / inner)
    per_call.sort()
    # Percentiles interpolated between closest ranks, as authcore-bench reads its own ("inclusive").
    q = statistics.quantiles(per_call, n=100, method="inclusive")
    print(json.dumps({
        "name": "py.sigv4.sign.get", "unit": "ns", "median": statistics.median(per_call),
        "p10": q[9], "p25": q[24], "p75": q[74], "p90": q[89], "p99": q[98],
        "iterations": samples * inner, "note": "botocore %s SigV4Auth.add_auth" % botocore.__version__,
        "min": per_call[0], "max": per_call[-1], "mean": statistics.mean(per_call), "stddev": statistics.stdev(per_call),
        "samples": len(per_call),
    }))


if __name__ == "__main__":
    main()
