#!/usr/bin/env python3
"""Convert NIST CAVP "SigVer PKCS#1 Ver 1.5" (FIPS 186-3) test data, shipped by the PyPI package
`cryptography-vectors` (asymmetric/RSA/FIPS_186-2/SigVer15_186-3.rsp), into the fixture
Tests/AuthCoreTests/Fixtures/rsa-pkcs1v15-sigver.json for RSAPublicKey.

Kept: moduli of 2048 bits and more (RSAPublicKey refuses shorter ones, RFC 7518 §3.3), with SHA-256,
SHA-384 and SHA-512 (the JWS RS256/RS384/RS512 hashes). Every record's expected result (P or F) is
re-checked with the `cryptography` package's RSA verification; a disagreement or an unexpected
record count makes the script exit non-zero without writing the file. Deterministic output. Run:

    .venv/bin/python scripts/convert_rsa_sigver_vectors.py
"""
import json
import sys
from pathlib import Path

import cryptography
import cryptography_vectors
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests/AuthCoreTests/Fixtures/rsa-pkcs1v15-sigver.json"
HASHES = {"SHA256": ("sha256", hashes.SHA256()), "SHA384": ("sha384", hashes.SHA384()), "SHA512": ("sha512", hashes.SHA512())}


def main():
    path = "asymmetric/RSA/FIPS_186-2/SigVer15_186-3.rsp"
    with cryptography_vectors.open_vector_file(path, "r") as f:
        lines = [line.strip() for line in f.read().splitlines()]
    cases, modulus, bits, record = [], None, None, {}
    for line in lines + [""]:
        if line.startswith("[mod = "):
            bits = int(line[7:-1])
        elif " = " in line:
            key, value = line.split(" = ", 1)
            if key == "n":
                modulus = value
            else:
                record[key] = value
            if key == "Result":
                if bits >= 2048 and record["SHAAlg"] in HASHES:
                    name, algorithm = HASHES[record["SHAAlg"]]
                    n, e = int(modulus, 16), int(record["e"], 16)
                    key_object = rsa.RSAPublicNumbers(e, n).public_key()
                    try:
                        key_object.verify(bytes.fromhex(record["S"]), bytes.fromhex(record["Msg"]), padding.PKCS1v15(), algorithm)
                        oracle = True
                    except InvalidSignature:
                        oracle = False
                    expected = record["Result"].startswith("P")
                    if oracle != expected:
                        sys.exit("cryptography disagrees with CAVP on a %d-bit %s record" % (bits, name))
                    e_hex = "%x" % e
                    cases.append({
                        "bits": bits, "hash": name, "n": modulus.lower(), "e": ("0" * (len(e_hex) % 2)) + e_hex,
                        "message": record["Msg"].lower(), "signature": record["S"].lower(), "valid": expected,
                        "note": record["Result"],
                    })
                record = {}
    if len(cases) != 162:
        sys.exit("expected 162 records (moduli 2048/3072/4096 x 3 keys x 3 hashes x 6), found %d" % len(cases))
    document = {
        "source": "NIST CAVP SigVer15_186-3.rsp (CAVS 11.0) from PyPI cryptography-vectors %s; every result re-checked "
                  "with cryptography %s RSA PKCS#1 v1.5 verification; moduli >= 2048 bits, SHA-256/384/512"
                  % (cryptography_vectors.__version__, cryptography.__version__),
        "cases": cases,
    }
    OUT.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print("wrote %s (%d cases, %d valid)" % (OUT.relative_to(ROOT), len(cases), sum(c["valid"] for c in cases)))


if __name__ == "__main__":
    main()
