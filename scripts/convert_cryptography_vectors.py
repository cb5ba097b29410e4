#!/usr/bin/env python3
"""Convert test data shipped by the PyPI package `cryptography-vectors` into
AuthCore vector files (format: shared spec `vectors.md`, kinds hash/hmac/hkdf).

Written files (in the repository's `vectors/` directory, located relative to
this script):

  hmac-rfc4231.json          RFC 4231 HMAC-SHA-224/256/384/512, test cases 1-7
  hmac-rfc2202-sha1.json     RFC 2202 HMAC-SHA-1, test cases 1-7 (+ 96-bit truncation of case 5)
  hkdf-rfc5869.json          RFC 5869 HKDF-SHA-256 / HKDF-SHA-1, test cases 1-7
  hash-fips180-<alg>.json    NIST CAVP SHAVS ShortMsg + LongMsg (byte-oriented) for
                             sha1/sha224/sha256/sha384/sha512, plus the FIPS 180-2
                             "abc", 448-bit, (896-bit for SHA-384/512) and one-million-'a'
                             examples. Split per algorithm because one file would exceed 3 MB.

The data files are located through the installed `cryptography_vectors`
package (never a hard-coded path). Every expected value read from a data file
(or taken from the RFC / FIPS text) is recomputed with Python's hashlib/hmac and
with the `cryptography` package's HKDF; any disagreement, a malformed record or
an unexpected record count makes the script exit non-zero without writing files.

Run from the repository root:

    .venv/bin/python scripts/convert_cryptography_vectors.py

The output is deterministic: running it twice yields byte-identical files.
"""

import hashlib
import hmac
import json
import sys
from pathlib import Path

import cryptography
import cryptography_vectors
from cryptography.hazmat.primitives import hashes as c_hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from reference_models import hkdf_expand

VECTORS_DIR = Path(__file__).resolve().parent.parent / "vectors"
PKG_DIR = Path(cryptography_vectors.__file__).resolve().parent
PKG = f"cryptography-vectors {cryptography_vectors.__version__}"

ALGS = ["sha1", "sha224", "sha256", "sha384", "sha512"]
DIGEST_SIZE = {a: hashlib.new(a).digest_size for a in ALGS}


class Inconsistency(Exception):
    pass


def fail(msg):
    raise Inconsistency(msg)


def check(cond, msg):
    if not cond:
        fail(msg)


def unhex(s, what):
    s = s.strip()
    try:
        return bytes.fromhex(s)
    except ValueError:
        fail(f"{what}: not hex: {s[:60]!r}")


def read_lines(rel):
    path = PKG_DIR / rel
    check(path.is_file(), f"missing data file {rel} in {PKG_DIR}")
    # CAVP .rsp files use CRLF; strip handles both.
    return [ln.strip() for ln in path.read_text(encoding="ascii").splitlines()]


def parse_kv_records(rel, start_key):
    """Parse `Key = value` records. A record starts at a line whose key is
    `start_key`; comments (#), [section] headers and blank lines are skipped
    (blank lines may occur inside a record in the RFC 5869 file)."""
    records = []
    cur = None
    for ln in read_lines(rel):
        if not ln or ln.startswith("#") or ln.startswith("["):
            continue
        check("=" in ln, f"{rel}: unparsable line {ln[:60]!r}")
        key, _, val = ln.partition("=")
        key, val = key.strip(), val.strip()
        if key == start_key:
            cur = {}
            records.append(cur)
        check(cur is not None, f"{rel}: field {key!r} before first {start_key!r}")
        check(key not in cur, f"{rel}: duplicate field {key!r} in a record")
        cur[key] = val
    return records


def section_lengths(rel):
    return {ln for ln in read_lines(rel) if ln.startswith("[")}


def write_json(filename, obj):
    names = [c["name"] for c in obj["cases"]]
    check(len(names) == len(set(names)), f"{filename}: duplicate case names")
    check(len(names) > 0, f"{filename}: no cases")
    text = json.dumps(obj, indent=1, sort_keys=False) + "\n"
    return filename, text


# ---------------------------------------------------------------------------
# HMAC


def hmac_hex(alg, key, msg):
    return hmac.new(key, msg, alg).hexdigest()


# RFC 4231 §4.6 (test case 5): the RFC prints only the first 128 bits.
# The cryptography-vectors files omit this case ("# truncation test from RFC not added").
RFC4231_CASE5_KEY = bytes([0x0C]) * 20
RFC4231_CASE5_MSG = b"Test With Truncation"
RFC4231_CASE5_TRUNC128 = {
    "sha224": "0e2aea68a90c8d37c988bcdb9fca6fa8",
    "sha256": "a3b6167473100ee06e0c796c2955552b",
    "sha384": "3abf34c3503b2a23a46efc619baef897",
    "sha512": "415fad6271580a531d4179bc891d87a6",
}


def hmac_case(name, alg, key, msg, mac_hex):
    got = hmac_hex(alg, key, msg)
    check(
        got[: len(mac_hex)] == mac_hex.lower(),
        f"{name}: data file MAC {mac_hex} != hmac {got}",
    )
    return {
        "name": name,
        "alg": alg,
        "key_hex": key.hex(),
        "msg_hex": msg.hex(),
        "expect": {"mac_hex": mac_hex.lower()},
    }


def parse_hmac_file(rel, alg):
    recs = parse_kv_records(rel, "Len")
    out = []
    for r in recs:
        check(set(r) == {"Len", "Key", "Msg", "MD"}, f"{rel}: fields {sorted(r)}")
        key = unhex(r["Key"], rel)
        msg = unhex(r["Msg"], rel)
        md = unhex(r["MD"], rel)
        check(int(r["Len"]) == 8 * len(msg), f"{rel}: Len {r['Len']} != 8*len(Msg)")
        check(len(md) == DIGEST_SIZE[alg], f"{rel}: MD is not a full {alg} MAC")
        out.append((key, msg, md.hex()))
    return out


def build_hmac_rfc4231():
    cases = []
    files = []
    for alg in ["sha224", "sha256", "sha384", "sha512"]:
        rel = f"HMAC/rfc-4231-{alg}.txt"
        files.append(rel)
        recs = parse_hmac_file(rel, alg)
        check(len(recs) == 6, f"{rel}: expected 6 records (cases 1-4, 6, 7), got {len(recs)}")
        numbers = [1, 2, 3, 4, 6, 7]
        by_case = dict(zip(numbers, recs))
        # Sanity: the record we map to case 6 must be the 131-byte-key one.
        check(len(by_case[6][0]) == 131 and len(by_case[7][0]) == 131, f"{rel}: case 6/7 shape")
        check(len(by_case[4][0]) == 25, f"{rel}: case 4 shape")
        by_case[5] = (RFC4231_CASE5_KEY, RFC4231_CASE5_MSG, RFC4231_CASE5_TRUNC128[alg])
        for n in range(1, 8):
            key, msg, mac = by_case[n]
            if n == 5:
                check(len(mac) == 32, "case 5 must be 16 bytes")
            cases.append(hmac_case(f"rfc4231-case{n}-hmac-{alg}", alg, key, msg, mac))
    source = (
        f"{PKG}, " + ", ".join(files) + " (RFC 4231 §4.2-4.8). "
        "Those files omit test case 5 ('# truncation test from RFC not added'); "
        "case 5 (key 0x0c*20, data 'Test With Truncation') was added from RFC 4231 §4.6 "
        "with the 128-bit truncated MACs the RFC prints (compare the first 16 bytes), "
        "cross-checked as prefixes of Python hmac/hashlib. All other MACs are full-length "
        "as in the data files and were recomputed with Python hmac."
    )
    return write_json("hmac-rfc4231.json", {"kind": "hmac", "source": source, "cases": cases})


def build_hmac_rfc2202():
    rel = "HMAC/rfc-2202-sha1.txt"
    recs = parse_hmac_file(rel, "sha1")
    check(len(recs) == 7, f"{rel}: expected 7 records, got {len(recs)}")
    check(recs[4][1] == b"Test With Truncation", f"{rel}: record 5 is not the truncation case")
    cases = []
    for n, (key, msg, mac) in enumerate(recs, start=1):
        cases.append(hmac_case(f"rfc2202-case{n}-hmac-sha1", "sha1", key, msg, mac))
        if n == 5:
            # RFC 2202 §3 prints both the full digest and digest-96 for case 5.
            cases.append(
                hmac_case("rfc2202-case5-hmac-sha1-96", "sha1", key, msg, mac[:24])
            )
    source = (
        f"{PKG}, {rel} (RFC 2202 §3, HMAC-SHA-1 test cases 1-7). "
        "The data file holds the full 160-bit MAC for test case 5; the extra case "
        "'rfc2202-case5-hmac-sha1-96' is the 96-bit truncation (first 12 bytes) that "
        "RFC 2202 prints as digest-96. All MACs recomputed with Python hmac."
    )
    return write_json("hmac-rfc2202-sha1.json", {"kind": "hmac", "source": source, "cases": cases})


# ---------------------------------------------------------------------------
# HKDF

HKDF_ALG = {"SHA-256": "sha256", "SHA-1": "sha1"}
C_HASH = {
    "sha1": c_hashes.SHA1,
    "sha224": c_hashes.SHA224,
    "sha256": c_hashes.SHA256,
    "sha384": c_hashes.SHA384,
    "sha512": c_hashes.SHA512,
}


def build_hkdf():
    files = ["KDF/rfc-5869-HKDF-SHA256.txt", "KDF/rfc-5869-HKDF-SHA1.txt"]
    cases = []
    empty_salt_cases = []
    for rel in files:
        recs = parse_kv_records(rel, "COUNT")
        for r in recs:
            want = {"COUNT", "Hash", "IKM", "salt", "info", "L", "PRK", "OKM"}
            check(set(r) == want, f"{rel}: fields {sorted(r)}")
            check(r["Hash"] in HKDF_ALG, f"{rel}: unknown Hash {r['Hash']}")
            alg = HKDF_ALG[r["Hash"]]
            n = int(r["COUNT"])
            ikm = unhex(r["IKM"], rel)
            salt = unhex(r["salt"], rel)
            info = unhex(r["info"], rel)
            length = int(r["L"])
            prk = unhex(r["PRK"], rel)
            okm = unhex(r["OKM"], rel)
            name = f"rfc5869-case{n}-hkdf-{alg}"
            check(len(okm) == length, f"{name}: len(OKM) != L")
            check(1 <= length <= 255 * DIGEST_SIZE[alg], f"{name}: L out of range")
            my_prk = hmac.new(salt if salt else b"\0" * DIGEST_SIZE[alg], ikm, alg).digest()
            check(my_prk == prk, f"{name}: PRK mismatch vs hmac")
            check(hkdf_expand(alg, prk, info, length) == okm, f"{name}: OKM mismatch vs own expand")
            c_okm = HKDF(
                algorithm=C_HASH[alg](), length=length, salt=salt or None, info=info
            ).derive(ikm)
            check(c_okm == okm, f"{name}: OKM mismatch vs cryptography HKDF")
            if not salt:
                empty_salt_cases.append(n)
            cases.append(
                {
                    "name": name,
                    "alg": alg,
                    "ikm_hex": ikm.hex(),
                    "salt_hex": salt.hex(),
                    "info_hex": info.hex(),
                    "length": length,
                    "expect": {"prk_hex": prk.hex(), "okm_hex": okm.hex()},
                }
            )
    nums = sorted(int(c["name"].split("-")[1][4:]) for c in cases)
    check(nums == list(range(1, 8)), f"HKDF: expected RFC 5869 cases 1-7, got {nums}")
    cases.sort(key=lambda c: int(c["name"].split("-")[1][4:]))
    source = (
        f"{PKG}, " + ", ".join(files) + " (RFC 5869 Appendix A, test cases 1-7). "
        f"Cases {', '.join(map(str, sorted(empty_salt_cases)))} are written 'salt =' (empty) "
        "in the data files: 3 and 6 are the RFC's zero-length salt, 7 is 'salt not provided'; "
        "both mean HashLen zero octets, so salt_hex is \"\". PRK recomputed with Python hmac, "
        f"OKM with an independent expand and with cryptography {cryptography.__version__} HKDF."
    )
    return write_json("hkdf-rfc5869.json", {"kind": "hkdf", "source": source, "cases": cases})


# ---------------------------------------------------------------------------
# Hashes

CAVP_FILES = {
    "sha1": ("hashes/SHA1/SHA1ShortMsg.rsp", "hashes/SHA1/SHA1LongMsg.rsp"),
    "sha224": ("hashes/SHA2/SHA224ShortMsg.rsp", "hashes/SHA2/SHA224LongMsg.rsp"),
    "sha256": ("hashes/SHA2/SHA256ShortMsg.rsp", "hashes/SHA2/SHA256LongMsg.rsp"),
    "sha384": ("hashes/SHA2/SHA384ShortMsg.rsp", "hashes/SHA2/SHA384LongMsg.rsp"),
    "sha512": ("hashes/SHA2/SHA512ShortMsg.rsp", "hashes/SHA2/SHA512LongMsg.rsp"),
}

MSG_ABC = b"abc"
MSG_448 = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
MSG_896 = (
    b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
    b"hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
)

# FIPS 180-2 (incl. Change Notice 1 for SHA-224) Appendix example digests and
# the NIST "example values" for the remaining message/algorithm combinations.
FIPS180_EXAMPLES = {
    "sha1": {
        "abc": "a9993e364706816aba3e25717850c26c9cd0d89d",
        "448": "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
        "million-a": "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
    },
    "sha224": {
        "abc": "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
        "448": "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525",
        "million-a": "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67",
    },
    "sha256": {
        "abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "448": "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        "million-a": "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    },
    "sha384": {
        "abc": "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
        "8086072ba1e7cc2358baeca134c825a7",
        "448": "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6"
        "b0455a8520bc4e6f5fe95b1fe3c8452b",
        "896": "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712"
        "fcc7c71a557e2db966c3e9fa91746039",
        "million-a": "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b"
        "07b8b3dc38ecc4ebae97ddd87f3d8985",
    },
    "sha512": {
        "abc": "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        "448": "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
        "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445",
        "896": "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
        "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
        "million-a": "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
        "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
    },
}


def parse_cavp(rel, alg, label):
    headers = section_lengths(rel)
    check(headers == {f"[L = {DIGEST_SIZE[alg]}]"}, f"{rel}: unexpected headers {headers}")
    recs = parse_kv_records(rel, "Len")
    check(len(recs) > 0, f"{rel}: no records")
    cases, skipped, len0 = [], 0, 0
    for r in recs:
        check(set(r) == {"Len", "Msg", "MD"}, f"{rel}: fields {sorted(r)}")
        bits = int(r["Len"])
        if bits % 8:
            skipped += 1
            continue
        msg = unhex(r["Msg"], rel)
        if bits == 0:
            # CAVP writes the empty message as "Msg = 00" with Len = 0.
            check(msg == b"\x00", f"{rel}: Len = 0 with Msg {r['Msg']}")
            msg = b""
            len0 += 1
        check(len(msg) * 8 == bits, f"{rel}: Len {bits} != 8*len(Msg)")
        md = unhex(r["MD"], rel).hex()
        check(len(md) == 2 * DIGEST_SIZE[alg], f"{rel}: MD length")
        check(hashlib.new(alg, msg).hexdigest() == md, f"{rel}: Len {bits}: MD mismatch vs hashlib")
        cases.append(
            {
                "name": f"cavp-{alg}-{label}-len{bits:05d}",
                "alg": alg,
                "msg_hex": msg.hex(),
                "expect": {"digest_hex": md},
            }
        )
    return cases, skipped, len0


def fips_example_cases(alg):
    ex = FIPS180_EXAMPLES[alg]
    out = []
    for key, label, msg, rep in [
        ("abc", "abc", MSG_ABC, None),
        ("448", "448bit", MSG_448, None),
        ("896", "896bit", MSG_896, None),
        ("million-a", "million-a", b"a", 1_000_000),
    ]:
        if key not in ex:
            continue
        full = msg * (rep or 1)
        got = hashlib.new(alg, full).hexdigest()
        check(got == ex[key], f"FIPS 180 example {alg} {key}: table {ex[key]} != hashlib {got}")
        case = {"name": f"fips180-{alg}-{label}", "alg": alg, "msg_hex": msg.hex()}
        if rep:
            case["repeat"] = rep
        case["expect"] = {"digest_hex": ex[key]}
        out.append(case)
    return out


def build_hash_files():
    outputs = []
    for alg in ALGS:
        short_rel, long_rel = CAVP_FILES[alg]
        short, s_skip, s_len0 = parse_cavp(short_rel, alg, "short")
        long_, l_skip, _ = parse_cavp(long_rel, alg, "long")
        check(s_len0 == 1, f"{short_rel}: expected exactly one Len = 0 record")
        examples = fips_example_cases(alg)
        cases = examples + short + long_
        skip_note = (
            f" Skipped {s_skip + l_skip} record(s) whose Len is not a multiple of 8."
            if s_skip + l_skip
            else " Every record is byte-oriented (no Len that is not a multiple of 8), none skipped."
        )
        source = (
            f"{PKG}, {short_rel} ({len(short)} cases) and {long_rel} ({len(long_)} cases): "
            "NIST CAVP SHAVS byte-oriented ShortMsg/LongMsg response files "
            "(Monte Carlo files not used). The 'Len = 0' record's 'Msg = 00' "
            "is the empty message (msg_hex \"\")." + skip_note + " "
            f"Plus {len(examples)} FIPS 180 examples: 'abc', the 448-bit "
            "'abcdbcdecdef...nopq' message"
            + (", the 896-bit 'abcdefghbcdefghi...nopqrstu' message" if alg in ("sha384", "sha512") else "")
            + " and one million 'a' (msg_hex \"61\", repeat 1000000); those expected digests "
            "are the FIPS 180-2 appendix / NIST example values, cross-checked with Python hashlib. "
            "All CAVP digests were also recomputed with Python hashlib."
        )
        outputs.append(
            write_json(f"hash-fips180-{alg}.json", {"kind": "hash", "source": source, "cases": cases})
        )
    return outputs


def main():
    try:
        outputs = [build_hmac_rfc4231(), build_hmac_rfc2202(), build_hkdf()]
        outputs += build_hash_files()
    except Inconsistency as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    total = sum(len(t) for _, t in outputs)
    check_total = 15 * 1024 * 1024
    for name, text in outputs:
        if len(text) > 3 * 1024 * 1024:
            print(f"error: {name} is {len(text)} bytes (> 3 MB)", file=sys.stderr)
            return 1
    if total > check_total:
        print(f"error: total output {total} bytes > 15 MB", file=sys.stderr)
        return 1
    VECTORS_DIR.mkdir(exist_ok=True)
    for name, text in outputs:
        (VECTORS_DIR / name).write_text(text, encoding="utf-8", newline="\n")
        n = len(json.loads(text)["cases"])
        print(f"wrote vectors/{name}: {n} cases, {len(text)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
