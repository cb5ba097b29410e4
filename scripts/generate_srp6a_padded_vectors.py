#!/usr/bin/env python3
"""Generate vectors/srp6a-padded-proofs.json (kind `srp6a`, option `proof_padding: "padded"`): the SRP-6a
convention that hashes A, B and S padded to the length of N in the proofs and the session key
(M1 = H(H(N) XOR H(g) | H(I) | s | PAD(A) | PAD(B) | K), M2 = H(PAD(A) | M1 | K), K = H(PAD(S))), as
the swift-srp package computes them, beside RFC 2945's minimal bytes (pysrp).

No PyPI package implements the padded convention, so its values come from the small model of
generate_srp6a_vectors.py (`spec_values`, hashlib + Python ints), anchored to the independent oracle:
on every case here the model in minimal mode must reproduce pysrp 1.0.22 (pure-Python `srp._pysrp`, RFC
5054 mode) byte for byte — k, x, v, A, B, u, S, K, M1 and M2 — on the same inputs; only then are the
padded M1, M2 and K written. The padding changes nothing else (k, x, v, A, B, u, S are pysrp's).

Cases: for 1024, 2048 and 3072 bits with SHA-256 (and SHA-1, SHA-512 at 2048), a plain handshake and
handshakes searched so that A, B, or S has a leading zero byte — exactly where the two conventions
disagree (each such case is checked to give a different M1 or K than minimal mode, or the file is not
written). Each case is written twice: with PAD(g) in M1 (`proof_pad_g`, as swift-srp does) and without.

Deterministic (seeded). Usage: .venv/bin/python scripts/generate_srp6a_padded_vectors.py
"""
import hashlib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import generate_srp6a_vectors as G  # noqa: E402
import srp._pysrp as P  # noqa: E402
import srp_groups  # noqa: E402

SEED = "authcore-srp6a-padded-v1"
OUT = os.path.join(G.ROOT, "vectors", "srp6a-padded-proofs.json")
COMBOS = [(1024, "sha256"), (2048, "sha1"), (2048, "sha256"), (2048, "sha512"), (3072, "sha256")]
SHAPES = ["plain", "short-A", "short-B", "short-S"]


def inputs(bits, hname, shape):
    rng = random.Random("%s/%d/%s/%s" % (SEED, bits, hname, shape))
    N, g = srp_groups.get_N_g(bits)
    username = rng.choice(G.USERNAMES)
    password = rng.choice(G.PASSWORDS)
    salt = G.salt_no_leading_zero(rng, 16)
    a = G.rand_bits_exact(rng, 256)
    b = G.rand_bits_exact(rng, 256)
    if shape == "short-A":
        a = G.search_short_A(N, g, a)
    elif shape == "short-B":
        b = G.search_short_B(N, g, hname, username, password, salt, b)
    elif shape == "short-S":
        b = G.search_short_S(N, g, hname, username, password, salt, a, b)
    G.check(a < 1 << 256 and b < 1 << 256, "search overflowed 256 bits")
    return {"tag": shape, "username": username, "password": password, "salt": salt, "a": a, "a_len": 32, "b": b, "b_len": 32}


def main():
    G.check(P.__name__ == "srp._pysrp", "not the pure-Python pysrp module")
    srp_groups.check_groups()
    P.rfc5054_enable(True)
    cases = []
    for bits, hname in COMBOS:
        N, g = srp_groups.get_N_g(bits)
        L = G.byte_len(N)
        for shape in SHAPES:
            inp = inputs(bits, hname, shape)
            args = (inp["username"], inp["password"], inp["salt"], inp["a"], inp["b"])
            oracle = G.run_pysrp(bits, hname, *args)
            anchor = G.spec_values(N, g, hname, *args, pad_g=True)
            G.compare_to_spec("%d-%s-%s" % (bits, hname, shape), oracle, anchor, ["k", "x", "v", "A", "B", "u", "S", "K", "M1", "M2"])
            short = {"short-A": G.byte_len(oracle["A"]) < L, "short-B": G.byte_len(oracle["B"]) < L,
                     "short-S": G.byte_len(oracle["S"]) < L, "plain": True}[shape]
            G.check(short, "%d-%s: the %s search did not give a short value" % (bits, hname, shape))
            for pad_g in (True, False):
                minimal = G.spec_values(N, g, hname, *args, pad_g=pad_g)
                padded = G.spec_values(N, g, hname, *args, pad_g=pad_g, proof_padding="padded")
                differs = padded["M1"] != minimal["M1"] or padded["K"] != minimal["K"]
                G.check(differs == (shape != "plain"), "%d-%s-%s: padded and minimal proofs %s" % (
                    bits, hname, shape, "agree" if shape != "plain" else "differ"))
                values = dict(oracle, K=padded["K"])
                name = "padded-%d-%s-%s%s" % (bits, hname, shape, "-padg" if pad_g else "")
                case = G.build_case(name, bits, hname, inp, pad_g, values, padded["M1"], padded["M2"])
                case["options"] = dict(case.get("options", {}), proof_padding="padded")
                case = {key: case[key] for key in ["name", "group", "hash", "username", "password", "salt_hex", "a_hex", "b_hex", "options", "expect"]}
                cases.append(case)
    source = ("padded-proof SRP-6a (PAD(A), PAD(B) in M1, PAD(A) in M2, K = H(PAD(S)); the swift-srp convention): "
              "k, x, v, A, B, u, S from pysrp (PyPI srp %s, srp._pysrp, RFC 5054 mode); M1, M2, K from the hashlib model of "
              "scripts/generate_srp6a_vectors.py, which in minimal mode reproduced pysrp's k..M2 on every case; "
              "scripts/generate_srp6a_padded_vectors.py seed %s" % (G.PYSRP_VERSION, SEED))
    doc = {"kind": "srp6a", "source": source, "cases": cases}
    with open(OUT, "wb") as f:
        f.write((json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    print("wrote %s: %d cases" % (OUT, len(cases)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except G.Mismatch as e:
        print("generate_srp6a_padded_vectors: MISMATCH: %s" % e, file=sys.stderr)
        sys.exit(1)
