#!/usr/bin/env python3
"""Generate vectors/srp6a-srptools.json (kind `srp6a`) with srptools as the oracle, in groups whose N
is not a multiple of 64 bits long (issue 42): 1029, 1535 and 2047 bits.

Oracle: PyPI `srptools` 2.0.0, its `SRPContext` (the functions its client and server sessions call):
k, x, v, A, B, u, S, K, M1 and M2 are srptools' own, with a and b given to its functions as numbers and
the salt as bytes. Each case is also run through srptools' `SRPClientSession`/`SRPServerSession`
with the same a and b (passed as their `private` numbers), which must produce the same values and accept
each other's proofs.

Groups: safe primes with g = 2, made by `openssl dhparam -2 BITS` (OpenSSL 3.0.19) and checked here:
N and (N-1)/2 pass 40 Miller-Rabin rounds, N has exactly BITS bits and g = 2 generates the subgroup
of order (N-1)/2 (2^((N-1)/2) = 1 mod N).

srptools' departures from RFC 5054 / RFC 2945, as it computes them (recorded in `source`):
- `H(N) XOR H(g)` in M1 is an XOR of integers written back as minimal bytes: a leading zero byte of
  the XOR would be dropped. The generator checks that no group/hash here has one (so M1 agrees with
  RFC 2945's fixed-width XOR), and stops otherwise.
- A salt given as a number is hashed as its minimal bytes; here salts are bytes (hashed as given)
  and never start with 00.
- H(g) in M1 is over g's minimal bytes (RFC 2945; no PAD), A and B in M1 and M2 and S in K are
  minimal bytes (RFC 2945), k = H(N | PAD(g)) and u = H(PAD(A) | PAD(B)) (RFC 5054).

Cases: per group, SHA-1, SHA-256 and SHA-512, three cases each; plus, per group, a case whose S has
a leading zero byte (K hashes fewer bytes) and, in the 1029-bit group, cases whose v, A or B is below
2^1024, so that its top 64-bit word is zero (the case the issue is about). Deterministic: inputs come
from random.Random seeded with SEED.

Usage: .venv/bin/python scripts/generate_srptools_vectors.py [--out PATH]
"""

import argparse
import hashlib
import importlib.metadata
import json
import os
import random
import sys

from srptools import SRPClientSession, SRPContext, SRPServerSession

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "vectors", "srp6a-srptools.json")
SEED = "authcore-srp6a-srptools-v1"
VERSION = "2.0.0"
HASHES = {"sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha512": hashlib.sha512}

# openssl dhparam -2 BITS (OpenSSL 3.0.19), 2026-12-06.
GROUPS = {
    1029: (
        "1FB2D56F41F7376CC67BE075C843D0BECEB2EF7398A2299CC90EC4525B514D48F42AAABCEB0B32065136842AF278D9ED"
        "7B8CC577CA82872AE5D3B2D94742BDF02B86CC50F1F47D070D64371763F90347275C23D40B038A6E68FDE91CD93D1756"
        "3708915F9B3E78DFF55C4621514A879639A5CC541333CB50454CEE9FB0A126D207"
    ),
    1535: (
        "64306A434728A3BE01073D3AEFF0D5A02EA53FC6F8B5B46DD80C03D5AE3C910A39CB67A982FBB7ACFA6AE06DEEDCDF3B"
        "5E3C011977C64772EAA95090DE587E782AFC43598A2818D0D152AD0906B2FE4AF4EC1D0DDC50A3AEC26CCE72C64E1230"
        "0E19A3D26A883CE1CCEC7E3B11E9C7C531E1DDF1F98225719CF7F833358DEF103E6F69EA406D40C82B0F3932125D7B02"
        "EA7695537589AF76C7F04346EEA54B8AE85359286836C35E81F06B8223DD08A046856FD12CE64A07CA543E95DFDBC89F"
    ),
    2047: (
        "79653F965BFB845C353B609A256A70FEF0DC0540828F2099203766B03F87499B63A8BA5B17ED47A5C9C2FE4EE644B591"
        "874FBDC3D4408947E504081FDA67A95D148F8F1517D5C3B301E5990541D88F9C5304EA9CDC3B0A758371CE81942F8706"
        "60924ED289BDB4A05B5B9BDA880EB904367FA3701A457A7B68DDCB06769F3A3BCCC68B4F433AFD77C2B1FC2C9559E3D6"
        "3F17406753572B3CDF6ABBD7E9D89F42280AD18D2C1F91E018FC5897DA00AFF6641C405ECED54DA0C595A954CA37D70E"
        "E3B4FC7DF6CD7269F5FA4DC4CBABA85C97C923803DFAD3295FCCDF5E66A52AB27D549D6CED628652D748B18B03972482"
        "ED150EEACEE8D55BF1B55CFA450CE26F"
    ),
}


def miller_rabin(n, rounds=40):
    if n < 4:
        return n in (2, 3)
    if n % 2 == 0:
        return False
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    rng = random.Random(n)
    for _ in range(rounds):
        a = rng.randrange(2, n - 2)
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def min_bytes(n):
    return n.to_bytes((n.bit_length() + 7) // 8 or 1, "big")


def fixed(n, width):
    return n.to_bytes(width, "big").hex().upper()


def check(condition, what):
    if not condition:
        sys.exit(f"generate_srptools_vectors: {what}")


def run_case(bits, prime_hex, hname, username, password, salt, a, b):
    """One exchange through srptools' SRPContext functions, checked against its session classes."""
    hash_func = HASHES[hname]
    client = SRPContext(username, password, prime=prime_hex, generator="2", hash_func=hash_func)
    server = SRPContext(username, prime=prime_hex, generator="2", hash_func=hash_func)
    n = int(prime_hex, 16)
    k = client._mult
    x = client.get_common_password_hash(salt)
    v = client.get_common_password_verifier(x)
    big_a = client.get_client_public(client_private=a)
    big_b = server.get_server_public(password_verifier=v, server_private=b)
    u = client.get_common_secret(big_b, big_a)
    s_client = client.get_client_premaster_secret(password_hash=x, server_public=big_b, client_private=a, common_secret=u)
    s_server = server.get_server_premaster_secret(password_verifier=v, server_private=b, client_public=big_a, common_secret=u)
    check(s_client == s_server, f"{bits}/{hname}: srptools' client and server S differ")
    key = client.get_common_session_key(s_client)
    m1 = client.get_common_session_key_proof(session_key=key, salt=salt, server_public=big_b, client_public=big_a)
    m2 = client.get_common_session_key_proof_hash(session_key=key, session_key_proof=m1, client_public=big_a)
    # The same exchange through srptools' session classes.
    server_session = SRPServerSession(server, password_verifier=v, private=b)
    client_session = SRPClientSession(client, private=a)
    client_session.process(server_session.public, salt)
    server_session.process(client_session.public, salt)
    check(int(server_session.public, 16) == big_b and int(client_session.public, 16) == big_a, f"{bits}/{hname}: session A/B differ")
    check(client_session.key_bin == key and server_session.key_bin == key, f"{bits}/{hname}: session K differs")
    check(client_session.key_proof_bin == m1 and server_session.key_proof_hash_bin == m2, f"{bits}/{hname}: session M1/M2 differ")
    check(server_session.verify_proof(client_session.key_proof_bin), f"{bits}/{hname}: srptools' server refused its client's M1")
    check(client_session.verify_proof(server_session.key_proof_hash_bin), f"{bits}/{hname}: srptools' client refused M2")
    width = hash_func().digest_size
    return {
        "k_hex": fixed(k, width), "x_hex": fixed(x, width), "v_hex": min_bytes(v).hex().upper(),
        "A_hex": min_bytes(big_a).hex().upper(), "B_hex": min_bytes(big_b).hex().upper(), "u_hex": fixed(u, width),
        "S_hex": min_bytes(s_client).hex().upper(), "K_hex": key.hex().upper(), "M1_hex": m1.hex().upper(), "M2_hex": m2.hex().upper(),
    }, (v, big_a, big_b, s_client, n)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args()
    check(importlib.metadata.version("srptools") == VERSION, f"srptools {VERSION} expected")
    cases = []
    for bits, prime_hex in GROUPS.items():
        n = int(prime_hex, 16)
        check(n.bit_length() == bits and miller_rabin(n) and miller_rabin((n - 1) // 2), f"{bits}: N is not a safe prime of {bits} bits")
        check(pow(2, (n - 1) // 2, n) == 1, f"{bits}: 2 does not generate the prime-order subgroup")
        for hname, hash_func in HASHES.items():
            hn = int.from_bytes(hash_func(min_bytes(n)).digest(), "big")
            hg = int.from_bytes(hash_func(b"\x02").digest(), "big")
            check((hn ^ hg).bit_length() > 8 * (hash_func().digest_size - 1),
                  f"{bits}/{hname}: H(N) XOR H(g) has a leading zero byte (srptools would drop it)")
        rng = random.Random(f"{SEED}-{bits}")

        def draw(hname, index, want=None, tries=4000):
            for _ in range(tries):
                username = rng.choice(["alice", "bob@example.com", "Zoë", "用户"]) + str(index)
                password = "pw-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(12))
                salt = bytes([rng.randrange(1, 256)]) + bytes(rng.randrange(256) for _ in range(15))
                a = rng.getrandbits(256) | (1 << 255)
                b = rng.getrandbits(256) | (1 << 255)
                expect, (v, big_a, big_b, s, _) = run_case(bits, prime_hex, hname, username, password, salt, a, b)
                if want is None or want(v, big_a, big_b, s):
                    return username, password, salt, a, b, expect
            sys.exit(f"generate_srptools_vectors: {bits}/{hname}: no case found for a condition in {tries} tries")

        width = (bits + 7) // 8
        plans = [(h, i, None, "") for h in HASHES for i in range(3)]
        plans.append(("sha256", 3, lambda v, A, B, s: s.bit_length() <= 8 * (width - 1), "-short-S"))
        if bits % 64 != 0 and bits < 1100:
            top = 64 * (bits // 64)
            plans.append(("sha256", 4, lambda v, A, B, s: v.bit_length() <= top, "-v-top-word-zero"))
            plans.append(("sha1", 5, lambda v, A, B, s: A.bit_length() <= top, "-A-top-word-zero"))
            plans.append(("sha512", 6, lambda v, A, B, s: B.bit_length() <= top, "-B-top-word-zero"))
        for hname, index, want, suffix in plans:
            username, password, salt, a, b, expect = draw(hname, index, want)
            cases.append({
                "name": f"srptools-{bits}-{hname}-{index}{suffix}", "N_hex": prime_hex.upper(), "g_hex": "02", "hash": hname,
                "username": username, "password": password, "salt_hex": salt.hex().upper(),
                "a_hex": format(a, "X"), "b_hex": format(b, "X"), "expect": expect,
            })
    document = {
        "kind": "srp6a",
        "source": (
            f"srptools {VERSION} (PyPI), SRPContext's functions with a, b given as numbers and the salt as bytes, each case also run "
            "through its SRPClientSession/SRPServerSession (same values, proofs accepted both ways); groups whose N is not a multiple "
            "of 64 bits (1029, 1535, 2047 bits): safe primes with g = 2 from `openssl dhparam -2 BITS` (OpenSSL 3.0.19), N and (N-1)/2 "
            "checked by 40 Miller-Rabin rounds. srptools' departures from RFC 5054/2945: H(N) XOR H(g) is an integer XOR written as "
            "minimal bytes (none of these groups/hashes has a leading zero byte there, checked), a salt given as a number would be "
            "hashed as minimal bytes (salts here are bytes without a leading 00), H(g) in M1 unpadded, A, B, S minimal in M1/M2/K; "
            f"scripts/generate_srptools_vectors.py seed {SEED}"),
        "cases": cases,
    }
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1, ensure_ascii=False)
        out.write("\n")
    print(f"wrote {len(cases)} cases to {args.out}")


if __name__ == "__main__":
    main()
