#!/usr/bin/env python3
"""Generate deterministic random differential vectors for hashes, HMAC and HKDF
(format: shared spec `vectors.md`, kinds hash/hmac/hkdf).

Oracles are Python's hashlib/hmac and the `cryptography` package (never AuthCore
code). Every value is computed by two independent implementations and the script
exits non-zero if they disagree:
  hash: hashlib vs cryptography.hazmat.primitives.hashes
  hmac: Python hmac vs cryptography.hazmat.primitives.hmac
  hkdf: PRK with Python hmac (HMAC(salt or HashLen zeros, IKM)); OKM from
        cryptography's HKDF, checked against an own RFC 5869 expand over that PRK.

Written files (in the repository's `vectors/` directory, located relative to
this script):
  hash-random.json   200 cases: sha1/224/256/384/512; message lengths 0, 1, 55, 56,
                     63, 64, 65, 111, 112, 127, 128, 129 and random lengths up to 5000
  hmac-random.json   200 cases: key lengths 0, 1, block-1, block, block+1, 200 and
                     random; random message lengths including 0
  hkdf-random.json   150 cases: sha1/224/256/384/512; empty salt, HashLen-zeros salt,
                     empty info, lengths 1, HashLen, HashLen+1, 255*HashLen and random,
                     plus the Amazon Cognito shape (SHA-256, 16 bytes,
                     info "Caldera Derived Key")

The generator is seeded (random.Random(20261129)); running it twice with the same
Python/OpenSSL/cryptography produces byte-identical files.

Run from the repository root:

    .venv/bin/python scripts/generate_random_digest_vectors.py
"""

import hashlib
import hmac
import json
import platform
import random
import ssl
import sys
from pathlib import Path

import cryptography
from cryptography.hazmat.backends.openssl.backend import backend as c_backend
from cryptography.hazmat.primitives import hashes as c_hashes
from cryptography.hazmat.primitives import hmac as c_hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from reference_models import hkdf_expand

SEED = 20261129
VECTORS_DIR = Path(__file__).resolve().parent.parent / "vectors"

ALGS = ["sha1", "sha224", "sha256", "sha384", "sha512"]
C_HASH = {
    "sha1": c_hashes.SHA1,
    "sha224": c_hashes.SHA224,
    "sha256": c_hashes.SHA256,
    "sha384": c_hashes.SHA384,
    "sha512": c_hashes.SHA512,
}
HASH_LEN = {a: hashlib.new(a).digest_size for a in ALGS}
BLOCK = {a: hashlib.new(a).block_size for a in ALGS}

SOURCE = (
    f"Python {platform.python_version()} hashlib/hmac ({ssl.OPENSSL_VERSION}) / "
    f"cryptography {cryptography.__version__} ({c_backend.openssl_version_text()}), "
    f"scripts/generate_random_digest_vectors.py seed {SEED}"
)


class Inconsistency(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Inconsistency(msg)


# ---------------------------------------------------------------------------
# Oracles


def digest(alg, msg):
    a = hashlib.new(alg, msg).digest()
    h = c_hashes.Hash(C_HASH[alg]())
    h.update(msg)
    b = h.finalize()
    check(a == b, f"hash {alg} len {len(msg)}: hashlib != cryptography")
    return a


def mac(alg, key, msg):
    a = hmac.new(key, msg, alg).digest()
    h = c_hmac.HMAC(key, C_HASH[alg]())
    h.update(msg)
    b = h.finalize()
    check(a == b, f"hmac {alg} key {len(key)} msg {len(msg)}: hmac != cryptography")
    return a


def hkdf(alg, ikm, salt, info, length):
    prk = hmac.new(salt if salt else b"\0" * HASH_LEN[alg], ikm, alg).digest()
    okm = HKDF(algorithm=C_HASH[alg](), length=length, salt=salt or None, info=info).derive(ikm)
    check(len(okm) == length, f"hkdf {alg}: cryptography returned {len(okm)} bytes")
    check(
        okm == hkdf_expand(alg, prk, info, length),
        f"hkdf {alg} L={length}: cryptography OKM != own expand",
    )
    return prk, okm


# ---------------------------------------------------------------------------
# Sets

HASH_EDGE_LENGTHS = [0, 1, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129]
HASH_PER_ALG = 40  # 5 * 40 = 200


def build_hash(rng):
    cases = []
    for alg in ALGS:
        lengths = list(HASH_EDGE_LENGTHS)
        while len(lengths) < HASH_PER_ALG:
            lengths.append(rng.randint(2, 5000))
        for i, n in enumerate(lengths):
            msg = rng.randbytes(n)
            cases.append(
                {
                    "name": f"rand-hash-{alg}-{i:03d}-len{n}",
                    "alg": alg,
                    "msg_hex": msg.hex(),
                    "expect": {"digest_hex": digest(alg, msg).hex()},
                }
            )
    return {"kind": "hash", "source": SOURCE, "cases": cases}


HMAC_PER_ALG = 40  # 5 * 40 = 200


def build_hmac(rng):
    cases = []
    for alg in ALGS:
        b = BLOCK[alg]
        key_lengths = [0, 1, b - 1, b, b + 1, 200, HASH_LEN[alg]]
        while len(key_lengths) < HMAC_PER_ALG:
            key_lengths.append(rng.randint(0, 300))
        for i, klen in enumerate(key_lengths):
            # message length: 0 for every 5th case, otherwise random (some around blocks)
            r = i % 5
            if r == 0:
                mlen = 0
            elif r == 1:
                mlen = rng.randint(1, 16)
            elif r == 2:
                mlen = rng.choice([b - 9, b - 8, b - 1, b, b + 1, 2 * b])
            else:
                mlen = rng.randint(0, 3000)
            key = rng.randbytes(klen)
            msg = rng.randbytes(mlen)
            cases.append(
                {
                    "name": f"rand-hmac-{alg}-{i:03d}-key{klen}-msg{mlen}",
                    "alg": alg,
                    "key_hex": key.hex(),
                    "msg_hex": msg.hex(),
                    "expect": {"mac_hex": mac(alg, key, msg).hex()},
                }
            )
    return {"kind": "hmac", "source": SOURCE, "cases": cases}


HKDF_PER_ALG = 28  # 5 * 28 + 10 Cognito-shape = 150
COGNITO_INFO = b"Caldera Derived Key"


def hkdf_case(name, alg, ikm, salt, info, length):
    prk, okm = hkdf(alg, ikm, salt, info, length)
    return {
        "name": name,
        "alg": alg,
        "ikm_hex": ikm.hex(),
        "salt_hex": salt.hex(),
        "info_hex": info.hex(),
        "length": length,
        "expect": {"prk_hex": prk.hex(), "okm_hex": okm.hex()},
    }


def build_hkdf(rng):
    cases = []
    for alg in ALGS:
        hl = HASH_LEN[alg]
        max_len = 255 * hl
        # (salt_kind, info_kind, length) plans; salt_kind: "none" -> "" (HashLen zeros),
        # "zeros" -> explicit HashLen zero bytes (same PRK as "none"), "rand" -> random.
        plans = [
            ("none", "empty", 1),
            ("none", "empty", hl),
            ("none", "empty", hl + 1),
            ("none", "empty", max_len),
            ("none", "rand", 42),
            ("zeros", "empty", 42),
            ("zeros", "rand", hl),
            ("rand", "empty", 1),
            ("rand", "empty", hl),
            ("rand", "rand", hl + 1),
            ("rand", "rand", max_len),
            ("rand", "rand", max_len - 1),
            ("rand", "rand", 2 * hl),
            ("rand", "rand", 2 * hl + 1),
            ("long", "rand", 64),  # salt longer than the block size (hashed as HMAC key)
            ("rand", "long", 100),
        ]
        while len(plans) < HKDF_PER_ALG:
            plans.append(
                (rng.choice(["none", "rand", "rand"]), rng.choice(["empty", "rand", "rand"]), rng.randint(1, max_len))
            )
        for i, (sk, ik, length) in enumerate(plans):
            ikm = rng.randbytes(rng.choice([0, 1, 16, 22, 32, rng.randint(2, 200)]))
            if sk == "none":
                salt = b""
            elif sk == "zeros":
                salt = b"\0" * hl
            elif sk == "long":
                salt = rng.randbytes(BLOCK[alg] + rng.randint(1, 100))
            else:
                salt = rng.randbytes(rng.randint(1, 80))
            if ik == "empty":
                info = b""
            elif ik == "long":
                info = rng.randbytes(rng.randint(200, 600))
            else:
                info = rng.randbytes(rng.randint(1, 40))
            name = f"rand-hkdf-{alg}-{i:03d}-salt{len(salt) if salt else 'none'}-info{len(info)}-L{length}"
            cases.append(hkdf_case(name, alg, ikm, salt, info, length))
    # Amazon Cognito shape: HKDF-SHA256, salt = PADs(u) (32 or 33 bytes, the 33-byte form
    # carries a leading 00 sign byte), ikm = PADs(S) (<= 385 bytes), info "Caldera Derived Key",
    # 16 bytes of output.
    for i in range(10):
        u = rng.randbytes(32)
        if i % 2 == 0:
            u = bytes([0x80 | u[0]]) + u[1:]  # high first byte -> sign byte
        else:
            u = bytes([u[0] & 0x7F]) + u[1:]
        salt = (b"\0" + u) if u[0] >= 0x80 else u
        s_len = [384, 383, 380, 384, 384, 300, 384, 382, 384, 384][i]
        s = rng.randbytes(s_len)
        s = bytes([(s[0] | 0x80) if i % 3 == 0 else (s[0] & 0x7F) or 1]) + s[1:]
        ikm = (b"\0" + s) if s[0] >= 0x80 else s
        name = f"cognito-shape-hkdf-sha256-{i:03d}-salt{len(salt)}-ikm{len(ikm)}"
        cases.append(hkdf_case(name, "sha256", ikm, salt, COGNITO_INFO, 16))
    return {"kind": "hkdf", "source": SOURCE + "; cognito-shape-* cases: salt = PADs(u), ikm = PADs(S), "
            "info \"Caldera Derived Key\", 16 bytes", "cases": cases}


def main():
    rng = random.Random(SEED)
    try:
        outputs = [
            ("hash-random.json", build_hash(rng)),
            ("hmac-random.json", build_hmac(rng)),
            ("hkdf-random.json", build_hkdf(rng)),
        ]
        for fname, obj in outputs:
            names = [c["name"] for c in obj["cases"]]
            check(len(names) == len(set(names)), f"{fname}: duplicate case names")
    except Inconsistency as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    VECTORS_DIR.mkdir(exist_ok=True)
    for fname, obj in outputs:
        text = json.dumps(obj, indent=1, sort_keys=False) + "\n"
        (VECTORS_DIR / fname).write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote vectors/{fname}: {len(obj['cases'])} cases, {len(text)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
