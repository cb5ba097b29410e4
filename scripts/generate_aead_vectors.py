#!/usr/bin/env python3
"""Writes vectors/aead-aes256gcm-nist.json (kind `aead`, AES-256-GCM with 96-bit nonces and 128-bit tags)
from NIST's CAVP GCM test files as the PyPI package `cryptography_vectors` ships them
(ciphers/AES/GCM/gcmEncryptExtIV256.rsp and gcmDecrypt256.rsp). Every case is checked by two more
implementations before it is written: `cryptography`'s AESGCM and pycryptodome's AES.MODE_GCM; the
script exits non-zero if either disagrees with NIST.

Kept: every [Keylen = 256][IVlen = 96][Taglen = 128] section (plaintext 0-408 bits, AAD 0-720 bits),
the first four encryption cases of each section, and the first four decryption cases of each section,
whose expected outcome is either the plaintext or `fails` (the NIST `FAIL` cases: a changed tag,
ciphertext, AAD, nonce or key).

Run from the repository root:  .venv/bin/python scripts/generate_aead_vectors.py
"""

import json
import os
import sys

import cryptography
import cryptography_vectors
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from Crypto import __version__ as pycryptodome_version
from Crypto.Cipher import AES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PER_SECTION = 4


def sections(name):
    path = os.path.join(os.path.dirname(cryptography_vectors.__file__), "ciphers", "AES", "GCM", name)
    header, case, out = {}, None, []
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                if case is not None and line == "" and "Count" in case:
                    out.append((dict(header), case))
                    case = None
                continue
            if line.startswith("["):
                key, _, value = (part.strip() for part in line.strip("[]").partition("="))
                header[key] = int(value)
                continue
            if line == "FAIL":
                case["FAIL"] = True
                continue
            key, _, value = (part.strip() for part in line.partition("="))
            if key == "Count":
                if case is not None and "Count" in case:
                    out.append((dict(header), case))
                case = {}
            case[key] = value
    if case is not None and "Count" in case:
        out.append((dict(header), case))
    return out


def others(key, iv, pt, aad):
    a = AESGCM(bytes.fromhex(key)).encrypt(bytes.fromhex(iv), bytes.fromhex(pt), bytes.fromhex(aad))
    cipher = AES.new(bytes.fromhex(key), AES.MODE_GCM, nonce=bytes.fromhex(iv), mac_len=16)
    cipher.update(bytes.fromhex(aad))
    ct, tag = cipher.encrypt_and_digest(bytes.fromhex(pt))
    return a, ct + tag


def main():
    cases, kept = [], {}
    for file, mode in (("gcmEncryptExtIV256.rsp", "encrypt"), ("gcmDecrypt256.rsp", "decrypt")):
        for header, c in sections(file):
            if header.get("Keylen") != 256 or header.get("IVlen") != 96 or header.get("Taglen") != 128:
                continue
            section = (mode, header["PTlen"], header["AADlen"])
            if kept.get(section, 0) >= PER_SECTION:
                continue
            kept[section] = kept.get(section, 0) + 1
            fails = c.get("FAIL", False)
            pt = "" if fails else c.get("PT", "")
            if not fails:
                a, b = others(c["Key"], c["IV"], pt, c["AAD"])
                nist = bytes.fromhex(c["CT"] + c["Tag"])
                if a != nist or b != nist:
                    sys.exit("oracles disagree with NIST on %s %r" % (file, c))
            else:
                try:
                    AESGCM(bytes.fromhex(c["Key"])).decrypt(bytes.fromhex(c["IV"]), bytes.fromhex(c["CT"] + c["Tag"]), bytes.fromhex(c["AAD"]))
                    sys.exit("cryptography accepted a NIST FAIL case %r" % c)
                except cryptography.exceptions.InvalidTag:
                    pass
            expect = {"fails": True} if fails else {"plaintext_hex": pt}
            cases.append({
                "name": "nist-%s-pt%d-aad%d-%s" % (mode, header["PTlen"], header["AADlen"], c["Count"]),
                "algorithm": "aes-256-gcm",
                "key_hex": c["Key"], "nonce_hex": c["IV"], "aad_hex": c["AAD"],
                **({"plaintext_hex": pt} if mode == "encrypt" else {"ciphertext_hex": c["CT"], "tag_hex": c["Tag"]}),
                "expect": expect if mode == "decrypt" else {"ciphertext_hex": c["CT"], "tag_hex": c["Tag"]},
            })
    document = {
        "kind": "aead",
        "source": "NIST CAVP GCM test vectors (CAVS 14.0, gcmEncryptExtIV256.rsp and gcmDecrypt256.rsp) from cryptography_vectors %s; "
                  "each case re-checked with cryptography %s AESGCM and pycryptodome %s AES.MODE_GCM; "
                  "scripts/generate_aead_vectors.py, %d cases per [PTlen][AADlen] section with 96-bit IVs and 128-bit tags"
                  % (cryptography_vectors.__version__, cryptography.__version__, pycryptodome_version, PER_SECTION),
        "cases": cases,
    }
    path = os.path.join(ROOT, "vectors", "aead-aes256gcm-nist.json")
    with open(path, "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    fails = sum(1 for c in cases if c["expect"].get("fails"))
    print("%s: %d cases (%d must fail)" % (path, len(cases), fails))


if __name__ == "__main__":
    main()
