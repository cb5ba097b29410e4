#!/usr/bin/env python3
"""Python reference row `py.cognito.login.client` for authcore-bench: pycognito 2024.5.1's whole
client-side computation of one USER_SRP_AUTH sign-in.

One iteration = AWSSRP(...) construction (k, a fresh random 1024-bit `a` from os.urandom(128) as
pycognito draws it, A = g^a mod N), get_auth_params() (SRP_A hex), then process_challenge() on a
fixed realistic PASSWORD_VERIFIER challenge (u, x, S, HKDF, claim HMAC, TIMESTAMP formatting).
The challenge is made once, outside the timing, as a real server would: 16-byte salt,
v = g^x, B = (k*v + g^b) mod N with a 256-bit b, B a full 3072-bit value, a 1 KiB secret block.

With --prepared, the row is `py.cognito.login.client.prepared`: (a, A) is made outside the
timing (a fresh AWSSRP per iteration) and only process_challenge() is timed.

No network: AWSSRP gets a client object that raises on any use, so boto3 is never called.

Prints one JSON object on stdout:
  {"name": ..., "unit": "ns", "median": ..., "p10": ..., "p25": ..., "p75": ..., "p90": ..., "p99": ..., "iterations": ...}
where the statistics are over per-iteration wall times (time.perf_counter_ns), `iterations`
is the number of timed samples (default 21, --quick 5), after 2 untimed warm-up iterations
(1 with --quick). Percentiles, the median too: interpolated between the closest ranks, as
authcore-bench reads its own.
"""

import argparse
import base64
import hashlib
import json
import math
import random
import time

from pycognito_hooks import NoNetworkClient
from pycognito.aws_srp import AWSSRP, G_HEX, N_HEX, hex_hash, hex_to_long, pad_hex

N = hex_to_long(N_HEX)
G = hex_to_long(G_HEX)

POOL_ID = "us-east-1_AbCdEf123"
CLIENT_ID = "1example23456789abcdefghij"
USERNAME = "alice@example.com"
USER_ID_FOR_SRP = "d0625357-a9fe-4a63-b7ed-e97c11fca2b9"
PASSWORD = "correct horse battery staple 1!"


def make_challenge(seed=3072):
    """A PASSWORD_VERIFIER challenge as a real server would send it (not timed)."""
    rng = random.Random(seed)
    salt_hex = rng.randbytes(16).hex()
    k = hex_to_long(hex_hash("00" + N_HEX + "0" + G_HEX))
    pool_name = POOL_ID.split("_")[1]
    inner = hashlib.sha256(f"{pool_name}{USER_ID_FOR_SRP}:{PASSWORD}".encode("utf-8")).hexdigest()
    x = hex_to_long(hex_hash(pad_hex(salt_hex) + inner))
    v = pow(G, x, N)
    while True:
        b = rng.getrandbits(256) | (1 << 255)
        B = (k * v + pow(G, b, N)) % N
        if B.bit_length() > 3064:  # a full-size 3072-bit B (first byte non-zero)
            break
    return {
        "SALT": salt_hex,
        "SRP_B": f"{B:x}",
        "SECRET_BLOCK": base64.standard_b64encode(rng.randbytes(1024)).decode("ascii"),
        "USER_ID_FOR_SRP": USER_ID_FOR_SRP,
        "USERNAME": USERNAME,
    }


def new_awssrp():
    return AWSSRP(username=USERNAME, password=PASSWORD, pool_id=POOL_ID, client_id=CLIENT_ID,
                  client=NoNetworkClient())


def one_login(challenge):
    srp = new_awssrp()  # k, fresh 1024-bit a, A = g^a mod N
    auth_params = srp.get_auth_params()  # SRP_A
    resp = srp.process_challenge(challenge, auth_params)  # u, x, S, HKDF, signature
    return resp["PASSWORD_CLAIM_SIGNATURE"]


def percentile(sorted_samples, pct):
    """Interpolated between the closest ranks, as authcore-bench reads its own percentiles."""
    position = pct / 100 * (len(sorted_samples) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_samples) - 1)
    return sorted_samples[low] + (sorted_samples[high] - sorted_samples[low]) * (position - low)


def main():
    ap = argparse.ArgumentParser(description="pycognito userSRP client-side benchmark")
    ap.add_argument("--quick", action="store_true", help="5 samples instead of 21")
    ap.add_argument("--samples", type=int, help="number of timed samples (overrides --quick)")
    ap.add_argument("--prepared", action="store_true",
                    help="time only process_challenge with a prepared (a, A)")
    args = ap.parse_args()
    samples = args.samples or (5 if args.quick else 21)
    warmup = 1 if args.quick else 2

    challenge = make_challenge()
    times = []
    for i in range(warmup + samples):
        if args.prepared:
            srp = new_awssrp()
            auth_params = srp.get_auth_params()
            t0 = time.perf_counter_ns()
            srp.process_challenge(challenge, auth_params)
            t1 = time.perf_counter_ns()
        else:
            t0 = time.perf_counter_ns()
            one_login(challenge)
            t1 = time.perf_counter_ns()
        if i >= warmup:
            times.append(t1 - t0)
    times.sort()
    name = "py.cognito.login.client" + (".prepared" if args.prepared else "")
    median = percentile(times, 50)
    print(json.dumps({
        "name": name,
        "unit": "ns",
        "median": median,
        "p10": percentile(times, 10),
        "p25": percentile(times, 25),
        "p75": percentile(times, 75),
        "p90": percentile(times, 90),
        "p99": percentile(times, 99),
        "iterations": len(times),
        "min": times[0], "max": times[-1], "mean": sum(times) / len(times), "samples": len(times),
        "stddev": (sum((t - sum(times) / len(times)) ** 2 for t in times) / max(1, len(times) - 1)) ** 0.5,
        "note": "pycognito %s, a: 1024 bits (its default; AuthCore uses 256)" % pycognito_version(),
    }))


def pycognito_version():
    from importlib.metadata import version
    return version("pycognito")


if __name__ == "__main__":
    main()
