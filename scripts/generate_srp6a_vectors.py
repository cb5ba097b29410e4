#!/usr/bin/env python3
"""Generate vectors/srp6a-pysrp.json (kind `srp6a`, see the spec's vectors.md) with pysrp as the oracle.

Oracle: PyPI `srp` (pysrp) 1.0.22, its pure-Python module `srp._pysrp` (NOT the default OpenSSL/ctypes
backend `srp._ctsrp`, which drops leading zero bytes of the salt), switched to RFC 5054 mode with
`rfc5054_enable()`.

How the inputs are injected (no monkeypatching of pysrp's arithmetic):
- a and b: pysrp's own constructor arguments `User(..., bytes_a=...)` and `Verifier(..., bytes_b=...)`,
  which pysrp requires to be exactly 256 bytes; the value is left-padded with zeros to 256 bytes
  (pysrp reads them with bytes_to_long, so the number is unchanged).
- salt: passed as raw bytes to `Verifier(...)` and `User.process_challenge(...)`.
- v: for a salt whose first byte is not 00, pysrp's `create_salted_verification_key` is run with its
  random source `srp._pysrp.get_random` temporarily replaced by one returning the salt (and the returned
  salt is checked to be the input). That function turns its random number into bytes with
  `long_to_bytes`, so it can never produce a salt starting with 00; for those salts v is pysrp's own
  `pow(g, gen_x(H, salt, I, P), N)` (the body of create_salted_verification_key). In every case the v
  that pysrp's client computes itself in process_challenge (User.v) is checked to be the same number.
- The whole exchange is then run through pysrp: User -> A, Verifier -> B, User.process_challenge -> M1,
  Verifier.verify_session -> M2 (must authenticate), User.verify_session(M2) (must authenticate); k, x, v,
  A, B, u, S, K, M1, M2 are read from pysrp's objects, client and server values checked to agree.

Every pysrp case carries "options": {"proof_pad_g": true}: in RFC 5054 mode pysrp hashes PAD(g) inside M1.

`-rfc2945` cases (AuthCore's default, g unpadded in M1, no PyPI oracle): same inputs as a pysrp case;
k, x, v, A, B, u, S, K are pysrp's; M1 and M2 are recomputed by `spec_values()` below, a small plain
implementation of the vectors.md math with hashlib and Python ints. That re-computation is validated
on every pysrp case: with PAD(g) it must reproduce pysrp's M1 and M2 exactly (and its k, x, v, A, B, u,
S, K too, which also checks that pysrp's conventions are those of vectors.md). Any mismatch exits
non-zero without writing the file.

Groups: pysrp 1.0.22 has only 1024, 2048, 4096, 8192 built in; 1536, 3072, 6144 use pysrp's NG_CUSTOM path
with the RFC 5054 Appendix A constants from srp_groups.py, which are checked (RFC 3526 formula / safe
prime) before anything is generated. The harness is also checked against RFC 5054 Appendix B
(vectors/srp6a-rfc5054-appendix-b.json).

Deterministic: all inputs come from random.Random seeded with SEED and the case's position; running it
twice writes identical bytes.

Usage: .venv/bin/python scripts/generate_srp6a_vectors.py [--out PATH]
"""

import argparse
import hashlib
import importlib.metadata
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import srp._pysrp as P  # noqa: E402  (pure-Python pysrp; never srp._ctsrp)
import srp_groups  # noqa: E402

SEED = "authcore-srp6a-pysrp-v1"
PYSRP_VERSION = "1.0.22"
GROUP_BITS = [1024, 1536, 2048, 3072, 4096, 6144, 8192]
HASH_NAMES = ["sha1", "sha256", "sha512"]
CASES_PER_COMBO = 4
RFC2945_TWINS = (1, 2)  # which of the per-combination cases also get a `-rfc2945` twin
SHORT_S_MAX_BITS = 3072  # case 1 of groups up to this size has S shorter than N (searched; costly above)

DEFAULT_OUT = os.path.join(ROOT, "vectors", "srp6a-pysrp.json")
APPENDIX_B = os.path.join(ROOT, "vectors", "srp6a-rfc5054-appendix-b.json")

USERNAMES = [
    "alice",
    "bob.smith@example.com",
    "Zoë Ångström",
    "用户名",
    "пользователь",
    "🔑-keyholder",
    "ÆØÅ_æøå",
    "José-María",
]
PASSWORDS = [
    "password123",
    "pässwörd",
    "пароль 密码",
    "🔐🗝️ secret",
    "correct horse battery staple",
    "Ünïcödé!",
]


class Mismatch(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Mismatch(what)


def hx(b):
    return b.hex().upper()


def byte_len(n):
    return (n.bit_length() + 7) // 8


def min_bytes(n):
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


# ---------------------------------------------------------------------------------------------
# Independent re-computation of the vectors.md math (hashlib + ints; shares nothing with pysrp).
# ---------------------------------------------------------------------------------------------

def spec_values(N, g, hname, username, password, salt, a, b, pad_g, proof_padding="minimal"):
    """The vectors.md math. proof_padding "padded" hashes PAD(A), PAD(B) in M1, PAD(A) in M2 and
    K = H(PAD(S)) (the convention of e.g. the swift-srp package); "minimal" is RFC 2945 / pysrp."""
    L = (N.bit_length() + 7) // 8

    def H(*parts):
        return hashlib.new(hname, b"".join(parts)).digest()

    def pad(z):
        return z.to_bytes(L, "big")

    def num(d):
        return int.from_bytes(d, "big")

    I = username.encode("utf-8")
    p = password.encode("utf-8")
    k = num(H(pad(N), pad(g)))
    x = num(H(salt, H(I + b":" + p)))
    v = pow(g, x, N)
    A = pow(g, a, N)
    B = (k * v + pow(g, b, N)) % N
    u = num(H(pad(A), pad(B)))
    S = pow((B - k * pow(g, x, N)) % N, a + u * x, N)
    S_server = pow(A * pow(v, u, N) % N, b, N)
    check(S == S_server, "spec re-computation: client S != server S")
    proof = pad if proof_padding == "padded" else min_bytes
    K = H(proof(S))
    hN = H(min_bytes(N))
    hg = H(pad(g) if pad_g else min_bytes(g))
    M1 = H(bytes(c ^ d for c, d in zip(hN, hg)), H(I), salt, proof(A), proof(B), K)
    M2 = H(proof(A), M1, K)
    return {"k": k, "x": x, "v": v, "A": A, "B": B, "u": u, "S": S, "K": K, "M1": M1, "M2": M2}


# ---------------------------------------------------------------------------------------------
# pysrp oracle
# ---------------------------------------------------------------------------------------------

def pysrp_verifier(bits, hname, username, password, salt):
    """(salt, v_bytes) from pysrp for a given salt."""
    hash_alg = srp_groups.HASHES[hname]
    ng = srp_groups.pysrp_ng_args(bits)
    if salt[:1] != b"\x00":
        real_get_random = P.get_random
        calls = []

        def fixed_get_random(nbytes):
            calls.append(nbytes)
            check(nbytes == len(salt), "pysrp asked for %d salt bytes, expected %d" % (nbytes, len(salt)))
            return int.from_bytes(salt, "big")

        P.get_random = fixed_get_random
        try:
            s_out, v_bytes = P.create_salted_verification_key(
                username, password, hash_alg=hash_alg, salt_len=len(salt), **ng)
        finally:
            P.get_random = real_get_random
        check(calls == [len(salt)], "create_salted_verification_key did not draw the salt exactly once")
        check(s_out == salt, "pysrp returned salt %s for injected %s" % (hx(s_out), hx(salt)))
        return v_bytes
    # pysrp's create_salted_verification_key cannot emit a salt with a leading 00 byte; same code, given salt:
    N, g = srp_groups.get_N_g(bits)
    hash_class = P._hash_map[hash_alg]
    return P.long_to_bytes(pow(g, P.gen_x(hash_class, salt, username, password), N))


def run_pysrp(bits, hname, username, password, salt, a, b):
    check(P._rfc5054_compat is True, "pysrp RFC 5054 mode is off")
    hash_alg = srp_groups.HASHES[hname]
    ng = srp_groups.pysrp_ng_args(bits)
    check(0 < a < 1 << 2048 and 0 < b < 1 << 2048, "a, b must fit pysrp's 256-byte bytes_a/bytes_b")

    v_bytes = pysrp_verifier(bits, hname, username, password, salt)

    user = P.User(username, password, hash_alg=hash_alg, bytes_a=a.to_bytes(256, "big"), **ng)
    check(user.a == a, "pysrp User did not take a")
    I_out, A_bytes = user.start_authentication()
    check(I_out == username, "pysrp User changed the username")

    ver = P.Verifier(username, salt, v_bytes, A_bytes, hash_alg=hash_alg, bytes_b=b.to_bytes(256, "big"), **ng)
    check(ver.b == b, "pysrp Verifier did not take b")
    s_out, B_bytes = ver.get_challenge()
    check(B_bytes is not None, "pysrp Verifier refused A")
    check(s_out == salt, "pysrp Verifier changed the salt")

    M1 = user.process_challenge(salt, B_bytes)
    check(M1 is not None, "pysrp User refused B")
    M2 = ver.verify_session(M1)
    check(M2 is not None and ver.authenticated(), "pysrp Verifier rejected pysrp User's M1")
    user.verify_session(M2)
    check(user.authenticated(), "pysrp User rejected pysrp Verifier's M2")

    # client and server agree
    check(user.k == ver.k, "k differs client/server")
    check(user.A == ver.A and user.B == ver.B, "A/B differ client/server")
    check(user.u == ver.u, "u differs client/server")
    check(user.v == ver.v == P.bytes_to_long(v_bytes), "v differs (create_salted_verification_key / User / Verifier)")
    check(user.S == ver.S, "S differs client/server")
    check(user.K == ver.K, "K differs client/server")
    check(user.M == ver.M == M1, "M1 differs client/server")
    check(user.H_AMK == ver.H_AMK == M2, "M2 differs client/server")
    check(user.get_session_key() == ver.get_session_key() == user.K, "session keys differ")
    return {
        "k": user.k, "x": user.x, "v": user.v, "A": user.A, "B": user.B, "u": user.u, "S": user.S,
        "K": user.K, "M1": M1, "M2": M2,
        "v_bytes": v_bytes, "A_bytes": A_bytes, "B_bytes": B_bytes,
    }


def compare_to_spec(name, got, spec, fields):
    for f in fields:
        check(got[f] == spec[f], "%s: pysrp %s differs from the vectors.md re-computation" % (name, f))


# ---------------------------------------------------------------------------------------------
# Case construction
# ---------------------------------------------------------------------------------------------

def rand_bytes(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def rand_bits_exact(rng, nbits):
    return rng.getrandbits(nbits) | (1 << (nbits - 1))


def salt_no_leading_zero(rng, n):
    s = rand_bytes(rng, n)
    return bytes([s[0] | 0x01]) + s[1:] if s[0] == 0 else s


def search_short_A(N, g, a):
    """Smallest a' >= a with g^a' mod N shorter (in bytes) than N."""
    L = (N.bit_length() + 7) // 8
    A = pow(g, a, N)
    while byte_len(A) >= L:
        a += 1
        A = A * g % N
    return a


def search_short_B(N, g, hname, username, password, salt, b):
    """Smallest b' >= b with (k*v + g^b') mod N shorter (in bytes) than N (k, v from spec_values)."""
    L = (N.bit_length() + 7) // 8
    sv = spec_values(N, g, hname, username, password, salt, 1, 1, False)
    kv = sv["k"] * sv["v"] % N
    gb = pow(g, b, N)
    while byte_len((kv + gb) % N) >= L:
        b += 1
        gb = gb * g % N
    return b


def search_short_S(N, g, hname, username, password, salt, a, b):
    """Smallest b' >= b with the premaster secret S shorter (in bytes) than N (so K = H(S) hashes fewer bytes)."""
    L = (N.bit_length() + 7) // 8
    sv = spec_values(N, g, hname, username, password, salt, a, 1, False)
    kv, v, A = sv["k"] * sv["v"] % N, sv["v"], sv["A"]
    gb = pow(g, b, N)
    while True:
        B = (kv + gb) % N
        u = int.from_bytes(hashlib.new(hname, A.to_bytes(L, "big") + B.to_bytes(L, "big")).digest(), "big")
        if byte_len(pow(A * pow(v, u, N) % N, b, N)) < L:
            return b
        b += 1
        gb = gb * g % N


def make_inputs(bits, hname, i):
    rng = random.Random("%s/%d/%s/%d" % (SEED, bits, hname, i))
    N, g = srp_groups.get_N_g(bits)
    username = rng.choice(USERNAMES)
    password = rng.choice(PASSWORDS)
    if i == 0:
        # plain: 16-byte salt, 256-bit a and b
        tag = "basic"
        username, password = "alice", "password123"
        salt = salt_no_leading_zero(rng, 16)
        a_len = b_len = 32
        a = rand_bits_exact(rng, 256)
        b = rand_bits_exact(rng, 256)
    elif i == 1:
        # salt with leading 00 byte(s); shorter ephemerals: a_hex of 32 bytes starting 00, b of 192 bits
        # (groups up to 3072: b is then searched so that S is shorter than N, to pin K = H(minimal S))
        tag = "salt00-short-ab"
        nz = 1 + rng.randrange(2)
        salt = b"\x00" * nz + salt_no_leading_zero(rng, 16 - nz)
        a_len, b_len = 32, 24
        a = rand_bits_exact(rng, 248)
        b = rand_bits_exact(rng, 192)
        if bits <= SHORT_S_MAX_BITS:
            tag += "-short-S"
            b = search_short_S(N, g, hname, username, password, salt, a, b)
            check(b < 1 << 192, "search overflowed 192 bits")
    elif i == 2:
        # A and/or B shorter than N; 32-byte salt; empty password
        which = {"sha1": "A", "sha256": "B", "sha512": "AB"}[hname]
        tag = "short-%s-emptypw" % which
        password = ""
        salt = salt_no_leading_zero(rng, 32)
        a_len = b_len = 32
        a = rand_bits_exact(rng, 256)
        b = rand_bits_exact(rng, 256)
        if "A" in which:
            a = search_short_A(N, g, a)
        if "B" in which:
            b = search_short_B(N, g, hname, username, password, salt, b)
        check(a < 1 << 256 and b < 1 << 256, "search overflowed 256 bits")
    else:
        # pysrp's own default ephemeral shape (256 random bytes, top bit set); 32-byte salt starting 00
        tag = "salt00-fullwidth-ab"
        salt = b"\x00" + salt_no_leading_zero(rng, 31)
        a_len = b_len = 256
        a = rand_bits_exact(rng, 2048)
        b = rand_bits_exact(rng, 2048)
        if password == "":
            password = "x"
    return {
        "tag": tag, "username": username, "password": password, "salt": salt,
        "a": a, "a_len": a_len, "b": b, "b_len": b_len,
    }


def expect_fields(hlen, vals, M1, M2):
    return {
        "k_hex": hx(vals["k"].to_bytes(hlen, "big")),
        "x_hex": hx(vals["x"].to_bytes(hlen, "big")),
        "v_hex": hx(vals["v_bytes"]),
        "A_hex": hx(vals["A_bytes"]),
        "B_hex": hx(vals["B_bytes"]),
        "u_hex": hx(vals["u"].to_bytes(hlen, "big")),
        "S_hex": hx(P.long_to_bytes(vals["S"])),
        "K_hex": hx(vals["K"]),
        "M1_hex": hx(M1),
        "M2_hex": hx(M2),
    }


def build_case(name, bits, hname, inp, pad_g, vals, M1, M2):
    hlen = hashlib.new(hname).digest_size
    case = {
        "name": name,
        "group": srp_groups.group_name(bits),
        "hash": hname,
        "username": inp["username"],
        "password": inp["password"],
        "salt_hex": hx(inp["salt"]),
        "a_hex": hx(inp["a"].to_bytes(inp["a_len"], "big")),
        "b_hex": hx(inp["b"].to_bytes(inp["b_len"], "big")),
    }
    if pad_g:
        case["options"] = {"proof_pad_g": True}
    case["expect"] = expect_fields(hlen, vals, M1, M2)
    return case


def self_check_appendix_b():
    """The harness must reproduce RFC 5054 Appendix B through pysrp."""
    with open(APPENDIX_B, encoding="utf-8") as f:
        doc = json.load(f)
    (case,) = doc["cases"]
    bits = int(case["group"].split("-")[1])
    vals = run_pysrp(bits, case["hash"], case["username"], case["password"], bytes.fromhex(case["salt_hex"]),
                     int(case["a_hex"], 16), int(case["b_hex"], 16))
    for f, want in case["expect"].items():
        key = f[:-len("_hex")]
        check(vals[key] == int(want, 16), "RFC 5054 Appendix B: pysrp %s differs" % key)


def generate():
    check(importlib.metadata.version("srp") == PYSRP_VERSION,
          "expected srp %s, found %s" % (PYSRP_VERSION, importlib.metadata.version("srp")))
    check(P.__name__ == "srp._pysrp", "not the pure-Python pysrp module")
    srp_groups.check_groups()
    P.rfc5054_enable(True)
    self_check_appendix_b()

    cases = []
    stats = {"pysrp": 0, "rfc2945": 0, "salt00": 0, "A_short": 0, "B_short": 0, "S_short": 0, "empty_pw": 0, "non_ascii": 0}
    for bits in GROUP_BITS:
        N, g = srp_groups.get_N_g(bits)
        L = (N.bit_length() + 7) // 8
        for hname in HASH_NAMES:
            twins = []
            for i in range(CASES_PER_COMBO):
                inp = make_inputs(bits, hname, i)
                base = "pysrp-%d-%s-%d-%s" % (bits, hname, i, inp["tag"])
                args = (inp["username"], inp["password"], inp["salt"], inp["a"], inp["b"])
                vals = run_pysrp(bits, hname, *args)
                padded = spec_values(N, g, hname, *args, pad_g=True)
                # validates the independent re-computation (and pysrp's conventions) on this case
                compare_to_spec(base, vals, padded, ["k", "x", "v", "A", "B", "u", "S", "K", "M1", "M2"])
                if inp["tag"].endswith("-short-S"):
                    check(len(P.long_to_bytes(vals["S"])) < L, base + ": S is not shorter than N")
                if inp["tag"].startswith("short-"):
                    if "A" in inp["tag"].split("-")[1]:
                        check(len(vals["A_bytes"]) < L, base + ": A is not shorter than N")
                    if "B" in inp["tag"].split("-")[1]:
                        check(len(vals["B_bytes"]) < L, base + ": B is not shorter than N")
                cases.append(build_case(base, bits, hname, inp, True, vals, vals["M1"], vals["M2"]))
                stats["pysrp"] += 1
                if i in RFC2945_TWINS:
                    plain = spec_values(N, g, hname, *args, pad_g=False)
                    check(plain["M1"] != vals["M1"], base + ": unpadded-g M1 equals padded-g M1")
                    twins.append(build_case(base + "-rfc2945", bits, hname, inp, False, vals, plain["M1"], plain["M2"]))
                    stats["rfc2945"] += 1
            cases.extend(twins)
    for c in cases:
        n_hex_len = 2 * byte_len(srp_groups.get_N_g(int(c["group"].split("-")[1]))[0])
        stats["salt00"] += c["salt_hex"].startswith("00")
        stats["A_short"] += len(c["expect"]["A_hex"]) < n_hex_len
        stats["B_short"] += len(c["expect"]["B_hex"]) < n_hex_len
        stats["S_short"] += len(c["expect"]["S_hex"]) < n_hex_len
        stats["empty_pw"] += c["password"] == ""
        stats["non_ascii"] += not (c["username"] + c["password"]).isascii()
    source = (
        "pysrp (PyPI srp %s), pure-Python module srp._pysrp in RFC 5054 mode (rfc5054_enable()), SHA-1/256/512, "
        "all seven RFC 5054 groups (1536, 3072, 6144 through pysrp's NG_CUSTOM with the RFC 5054 Appendix A "
        "constants); a, b injected through pysrp's bytes_a/bytes_b, salt as raw bytes; pysrp cases carry "
        "proof_pad_g (pysrp hashes PAD(g) in M1). '-rfc2945' cases: same inputs, k/x/v/A/B/u/S/K from pysrp, "
        "M1/M2 recomputed with hashlib and Python ints with g unpadded, that re-computation validated by "
        "reproducing pysrp's padded-g M1/M2 (and k..K) on every case; "
        "scripts/generate_srp6a_vectors.py seed %s" % (PYSRP_VERSION, SEED)
    )
    doc = {"kind": "srp6a", "source": source, "cases": cases}
    return doc, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    try:
        doc, stats = generate()
    except Mismatch as e:
        print("generate_srp6a_vectors: MISMATCH: %s" % e, file=sys.stderr)
        return 1
    data = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(data)
    print("wrote %s: %d cases (%s)" % (args.out, len(doc["cases"]),
                                      ", ".join("%s=%d" % kv for kv in stats.items())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
