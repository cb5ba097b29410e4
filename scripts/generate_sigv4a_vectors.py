#!/usr/bin/env python3
"""Generate vectors/sigv4a-awscrt.json: differential SigV4a vectors with the AWS Common Runtime as the oracle.

Oracle: awscrt 0.38.1 (PyPI), its own C signer (aws-c-auth) through ``awscrt.auth.aws_sign_request``
with ``AwsSigningAlgorithm.V4_ASYMMETRIC``, in header mode (``HTTP_REQUEST_HEADERS``) and query mode
(``HTTP_REQUEST_QUERY_PARAMS``), on seeded random requests: methods, paths with dot segments, repeated
slashes, spaces, percent signs and UTF-8; queries with repeated, bare, empty and reserved-character
parameters; headers with runs of spaces and repeated names; bodies; session tokens (signed or
omitted); one region, several, or ``*``; S3's rules (no double encoding, no normalisation,
``UNSIGNED-PAYLOAD``, the x-amz-content-sha256 header).

awscrt does not hand out its canonical request, string to sign or derived key; it gives the signed
request. So every case is also computed by this script's own model (the vectors.md conventions of
kind `sigv4a`, and the SigV4a key derivation over Python's hmac, the public point by `cryptography`),
and a case is written only when
- awscrt's ECDSA signature verifies (over `cryptography`) under the model's public key for the
  model's string to sign: the key derivation and the string to sign agree, hence the canonical
  request's hash;
- awscrt's Authorization header (header mode) or presigned query (query mode) equals the model's
  in everything but the signature value.

Each case carries the model's canonical request, string to sign and public key, awscrt's signature
(`expect.signature`: it must verify under the key for the string to sign) and awscrt's
`authorization` or `signed_uri` (compared without the signature value: ECDSA is randomized; a signed URI's parameters are compared
canonically, each key and value decoded and re-encoded, since awscrt sends the request's own parameters
as they came and AuthCore sends them canonical).

The CRT never signs `User-Agent` or `X-Amzn-Trace-Id` (AuthCore signs every header it is given: the
caller chooses), so those names are not in the random requests.

Usage:  .venv/bin/python scripts/generate_sigv4a_vectors.py [--check]
  --check  regenerate in memory and fail if vectors/sigv4a-awscrt.json differs in anything but the
           signatures awscrt drew (ECDSA signatures are randomized; everything else is deterministic).
"""

import datetime
import hashlib
import hmac
import io
import json
import os
import random
import sys
from urllib.parse import urlsplit

import awscrt
from awscrt.auth import (AwsCredentialsProvider, AwsSignatureType, AwsSignedBodyHeaderType, AwsSignedBodyValue,
                         AwsSigningAlgorithm, AwsSigningConfig, aws_sign_request)
from awscrt.http import HttpHeaders, HttpRequest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from reference_models import canonical_headers, canonical_query_pairs, canonical_uri, uri_encode
from vector_files import write_or_check

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "vectors", "sigv4a-awscrt.json")
EXPECTED_AWSCRT = "0.38.1"
ALGORITHM = "AWS4-ECDSA-P256-SHA256"
# The order n of P-256's base point (SEC 2 section 2.4.2).
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

RNG = random.Random(0x5164_A001)  # fixed seed: the requests (awscrt's ECDSA nonces are its own)


# ============================================================================
# Independent model (vectors.md, kind `sigv4a`)
# ============================================================================
def derive_scalar(access_key_id, secret):
    """The SigV4a key derivation: NIST SP 800-108 counter-mode HMAC-SHA256 with the label
    AWS4-ECDSA-P256-SHA256 and the context access key id || counter byte, key "AWS4A" || secret;
    a candidate above n - 2 is refused and the counter bumped; d = candidate + 1."""
    for counter in range(1, 255):
        fixed = (b"\x00\x00\x00\x01" + ALGORITHM.encode() + b"\x00" + access_key_id.encode() + bytes([counter])
                 + b"\x00\x00\x01\x00")
        candidate = int.from_bytes(hmac.new(("AWS4A" + secret).encode(), fixed, hashlib.sha256).digest(), "big")
        if candidate <= P256_ORDER - 2:
            return candidate + 1
    raise SystemExit("no counter gives a candidate")


def public_key(access_key_id, secret):
    return ec.derive_private_key(derive_scalar(access_key_id, secret), ec.SECP256R1()).public_key()


def model_sigv4a(case):
    """expect.canonical_request/string_to_sign/public_key, and the authorization or signed_uri without
    its signature value, from request/credentials/options."""
    req, cred, opts = case["request"], case["credentials"], case.get("options", {})
    mode = opts.get("mode", "header")
    ts, region_set = case["timestamp"], case["region_set"]
    scope = "%s/%s/aws4_request" % (ts[:8], case["service"])
    token = cred.get("session_token")
    omit = opts.get("omit_session_token", False)

    path, _, query = req["uri"].partition("?")
    cpath = canonical_uri(path, opts.get("normalize_path", True), opts.get("double_uri_encode", True))
    body = req.get("body", "").encode("utf-8")
    payload = {"hash": hashlib.sha256(body).hexdigest(), "unsigned": "UNSIGNED-PAYLOAD"}[opts.get("payload_hash", "hash")]

    headers = list(req["headers"])
    if mode == "header":
        headers += [("X-Amz-Date", ts), ("X-Amz-Region-Set", region_set)]
        if token and not omit:
            headers.append(("X-Amz-Security-Token", token))
    if opts.get("content_sha256_header", False):
        headers.append(("X-Amz-Content-SHA256", payload))
    header_block, signed_headers = canonical_headers(headers)

    params = canonical_query_pairs(query)
    unsigned = []
    if mode == "query":
        own = [("X-Amz-Algorithm", ALGORITHM), ("X-Amz-Credential", cred["access_key_id"] + "/" + scope),
               ("X-Amz-Date", ts), ("X-Amz-Expires", str(opts["expires"])), ("X-Amz-Region-Set", region_set),
               ("X-Amz-SignedHeaders", signed_headers)]
        if token:
            (unsigned if omit else own).append(("X-Amz-Security-Token", token))
        params += [(uri_encode(k), uri_encode(v)) for k, v in own]
        unsigned = [(uri_encode(k), uri_encode(v)) for k, v in unsigned]
    canonical_query = "&".join("%s=%s" % kv for kv in sorted(params))

    canonical = "\n".join([req["method"], cpath, canonical_query, header_block, signed_headers, payload])
    to_sign = "\n".join([ALGORITHM, ts, scope, hashlib.sha256(canonical.encode("utf-8")).hexdigest()])
    point = public_key(cred["access_key_id"], cred["secret_access_key"]).public_numbers()
    out = {"canonical_request": canonical, "string_to_sign": to_sign,
           "public_key": {"x": "%064x" % point.x, "y": "%064x" % point.y}}
    if mode == "header":
        out["authorization"] = "%s Credential=%s/%s, SignedHeaders=%s, Signature=" % (
            ALGORITHM, cred["access_key_id"], scope, signed_headers)
    else:
        out["signed_query"] = sorted("%s=%s" % kv for kv in params + unsigned)
    return out


# ============================================================================
# awscrt oracle
# ============================================================================
def run_awscrt(case):
    """Signs the case with awscrt; returns its signature (hex) and its authorization or signed_uri."""
    req, cred, opts = case["request"], case["credentials"], case.get("options", {})
    mode = opts.get("mode", "header")
    body = req.get("body", "").encode("utf-8")
    request = HttpRequest(method=req["method"], path=req["uri"], headers=HttpHeaders([tuple(h) for h in req["headers"]]),
                          body_stream=io.BytesIO(body))
    config = AwsSigningConfig(
        algorithm=AwsSigningAlgorithm.V4_ASYMMETRIC,
        signature_type=AwsSignatureType.HTTP_REQUEST_QUERY_PARAMS if mode == "query" else AwsSignatureType.HTTP_REQUEST_HEADERS,
        credentials_provider=AwsCredentialsProvider.new_static(cred["access_key_id"], cred["secret_access_key"],
                                                               cred.get("session_token")),
        region=case["region_set"], service=case["service"],
        date=datetime.datetime.strptime(case["timestamp"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc),
        use_double_uri_encode=opts.get("double_uri_encode", True),
        should_normalize_uri_path=opts.get("normalize_path", True),
        signed_body_value=AwsSignedBodyValue.UNSIGNED_PAYLOAD if opts.get("payload_hash") == "unsigned" else None,
        signed_body_header_type=(AwsSignedBodyHeaderType.X_AMZ_CONTENT_SHA_256 if opts.get("content_sha256_header")
                                 else AwsSignedBodyHeaderType.NONE),
        expiration_in_seconds=opts.get("expires"),
        omit_session_token=opts.get("omit_session_token", False))
    signed = aws_sign_request(request, config).result(timeout=30)
    if mode == "header":
        authorization = signed.headers.get("Authorization")
        prefix, _, signature = authorization.rpartition("Signature=")
        return {"signature": signature, "authorization": authorization, "authorization_prefix": prefix + "Signature="}
    parts = urlsplit(signed.path)
    pairs = parts.query.split("&")
    signature = [p for p in pairs if p.startswith("X-Amz-Signature=")]
    assert len(signature) == 1, signed.path
    # compared canonically (each key and value percent-decoded, then encoded as in the canonical query):
    # awscrt sends the request's own parameters as they came, AuthCore sends them canonical; a server
    # reads both the same
    rest = sorted("%s=%s" % kv for kv in canonical_query_pairs("&".join(p for p in pairs if not p.startswith("X-Amz-Signature="))))
    return {"signature": signature[0].partition("=")[2], "signed_uri": signed.path, "signed_path": parts.path,
            "signed_query": rest}


def verifies(model, signature_hex):
    key = ec.EllipticCurvePublicNumbers(int(model["public_key"]["x"], 16), int(model["public_key"]["y"], 16),
                                        ec.SECP256R1()).public_key()
    try:
        key.verify(bytes.fromhex(signature_hex), model["string_to_sign"].encode("utf-8"), ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


# ============================================================================
# Random requests
# ============================================================================
AK, SK = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
ASIA, ASIA_SK = "ASIAQEXAMPLE3TOKENID", "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"
TOKEN = "IQoJb3JpZ2luX2VjEXAMPLE//////////wEaCXVzLWVhc3QtMSJHMEUCIQDEXAMPLE+token/with+plus/slash=="
TIMESTAMPS = ["20260314T150926Z", "20151231T235959Z", "20240229T000000Z", "20991231T235959Z"]
REGION_SETS = ["us-east-1", "us-east-1,us-west-2", "*", "eu-west-1,ap-southeast-2,sa-east-1", "us-gov-west-1"]
SEGMENTS = ["a", "b", "photos", "2026", "x.y", "~user", "a-b_c", "caf\u00e9", "\u6771\u4eac", "with space", "50%", "a+b",
            "k=v", "(1)", "semi;colon", "at@sign", "\U0001F600", ".", "..", ""]
QUERY_KEYS = ["a", "B", "list-type", "prefix", "max-keys", "x-id", "Param1", "caf\u00e9", "k y", "a+b", "%2B", "z", "~"]
QUERY_VALUES = ["", "1", "2", "value", "a b", "a+b", "%20", "%2F", "/slash", "\u00fc", "=", "x=y", "*", "-_.~", "%7E"]
HEADER_NAMES = ["My-Header1", "X-Custom", "Content-Type", "Accept", "x-amz-meta-tag", "X-Amz-Meta-Tag", "Range",
                "If-None-Match", "Cache-Control"]
HEADER_VALUES = ["value1", "  leading and trailing  ", "a   b    c", "text/plain; charset=utf-8", "*/*",
                 "bytes=0-1023", "\"etag\"", "", "no-cache, no-store"]
BODIES = ["", "", "Param1=value1", "{\"json\": [1, 2, 3]}", "caf\u00e9 \u6771\u4eac", "x" * 300]


def random_path(rng, s3):
    segments = [rng.choice(SEGMENTS) for _ in range(rng.randint(0, 4))]
    if s3:  # S3 cases: an object key encoded once on the request line (vectors.md convention 1)
        return "/" + "/".join(uri_encode(s) for s in segments if s not in (".", ".."))
    raw = "/" + "/".join(segments)
    # a raw space, '%' or non-ASCII byte cannot go on a request line as is: the caller percent-encodes once
    return "".join(c if c in "/" or ord(c) < 128 and c not in " %" else uri_encode(c) for c in raw)


def random_query(rng):
    pairs = []
    for _ in range(rng.choice([0, 0, 1, 2, 3, 5])):
        key = uri_encode(rng.choice(QUERY_KEYS)) if rng.random() < 0.5 else rng.choice(["a", "b", "prefix", "x-id"])
        value = rng.choice(QUERY_VALUES)
        value = value if all(c.isascii() and c not in " +&#" for c in value) else uri_encode(value)
        pairs.append(key if rng.random() < 0.15 else "%s=%s" % (key, value))
    return "&".join(pairs)


def random_case(rng, index, mode, s3):
    method = rng.choice(["GET", "PUT", "POST", "DELETE", "HEAD"] if mode == "header" else ["GET", "PUT", "HEAD"])
    path = random_path(rng, s3)
    query = random_query(rng)
    host = "mrap.accesspoint.s3-global.amazonaws.com" if s3 else "example.amazonaws.com"
    headers = [["Host", host]]
    for _ in range(rng.randint(0, 4)):
        headers.append([rng.choice(HEADER_NAMES), rng.choice(HEADER_VALUES)])
    body = rng.choice(BODIES) if mode == "header" and method in ("PUT", "POST") else ""
    session = rng.random() < 0.4
    cred = {"access_key_id": ASIA if session else AK, "secret_access_key": ASIA_SK if session else SK}
    if session:
        cred["session_token"] = TOKEN
    options = {}
    if mode == "query":
        options["mode"] = "query"
        options["expires"] = rng.choice([1, 60, 900, 3600, 604800])
    if s3:
        options["double_uri_encode"] = False
        options["normalize_path"] = False
        if mode == "query" or rng.random() < 0.5:
            options["payload_hash"] = "unsigned"
        if mode == "header":
            options["content_sha256_header"] = True
    elif mode == "header" and rng.random() < 0.3:
        options["content_sha256_header"] = True
    if session and rng.random() < 0.25:
        options["omit_session_token"] = True
    case = {"name": "%s-%s-%02d" % ("s3" if s3 else "service", mode, index),
            "request": {"method": method, "uri": path + ("?" + query if query else ""), "headers": headers, "body": body},
            "credentials": cred, "region_set": rng.choice(REGION_SETS), "service": "s3" if s3 else rng.choice(["service", "execute-api", "sts"]),
            "timestamp": rng.choice(TIMESTAMPS)}
    if options:
        case["options"] = options
    return case


def specs():
    rng = RNG
    plan = [("header", False, 24), ("header", True, 12), ("query", False, 12), ("query", True, 12)]
    for mode, s3, count in plan:
        for index in range(count):
            yield random_case(rng, index, mode, s3)


def build():
    if awscrt.__version__ != EXPECTED_AWSCRT:
        raise SystemExit("awscrt %s found, %s required" % (awscrt.__version__, EXPECTED_AWSCRT))
    cases = []
    for case in specs():
        got = run_awscrt(case)
        model = model_sigv4a(case)
        if not verifies(model, got["signature"]):
            raise SystemExit("case %s: awscrt's signature does not verify under the model's key and string to sign:\n%s"
                             % (case["name"], json.dumps(case, indent=1, ensure_ascii=False)))
        expect = {k: model[k] for k in ("canonical_request", "string_to_sign", "public_key")}
        expect["verifies"] = True
        expect["signature"] = got["signature"]
        if "authorization" in got:
            if got["authorization_prefix"] != model["authorization"]:
                raise SystemExit("case %s: authorization\nawscrt: %s\nmodel:  %s" % (
                    case["name"], got["authorization_prefix"], model["authorization"]))
            expect["authorization"] = got["authorization"]
        else:
            if got["signed_query"] != model["signed_query"] or got["signed_path"] != case["request"]["uri"].partition("?")[0]:
                raise SystemExit("case %s: signed URI\nawscrt: %s %s\nmodel:  %s" % (
                    case["name"], got["signed_path"], got["signed_query"], model["signed_query"]))
            expect["signed_uri"] = got["signed_uri"]
        case["expect"] = expect
        cases.append(case)
    return {
        "kind": "sigv4a",
        "source": ("Differential SigV4a vectors, oracle awscrt %s (the AWS Common Runtime's C signer, "
                   "awscrt.auth.aws_sign_request with AwsSigningAlgorithm.V4_ASYMMETRIC, header and query "
                   "signature types; date fixed in the signing config) on seeded random requests, generated by "
                   "scripts/generate_sigv4a_vectors.py. expect.signature, authorization and signed_uri are awscrt's; "
                   "canonical_request, string_to_sign and public_key come from the script's model of vectors.md "
                   "(key derivation over hmac, the point by cryptography), and a case is written only when awscrt's "
                   "signature verifies under that key for that string to sign and its authorization or signed URI "
                   "equals the model's but for the signature value. The runner checks awscrt's signature against "
                   "its own key and string to sign, and compares authorization and signed_uri without the "
                   "signature value (ECDSA is randomized)." % awscrt.__version__),
        "cases": cases,
    }


def without_signatures(doc):
    """The document with awscrt's randomized signature values blanked (for --check)."""
    doc = json.loads(json.dumps(doc))
    for case in doc["cases"]:
        expect = case["expect"]
        expect["signature"] = ""
        if "authorization" in expect:
            expect["authorization"] = expect["authorization"].rpartition("Signature=")[0]
        if "signed_uri" in expect:
            expect["signed_uri"] = "&".join(p for p in expect["signed_uri"].split("&") if "X-Amz-Signature=" not in p)
    return doc


def main(argv):
    doc = build()
    if "--check" in argv:
        with open(OUT, encoding="utf-8") as f:
            committed = json.load(f)
        if without_signatures(committed) != without_signatures(doc):
            raise SystemExit("%s is out of date" % OUT)
        for case in committed["cases"]:  # the committed signatures are awscrt's: they still verify
            if not verifies(case["expect"], case["expect"]["signature"]):
                raise SystemExit("%s: case %s: the committed signature does not verify" % (OUT, case["name"]))
        print("up to date: %s (%d cases)" % (OUT, len(doc["cases"])))
        return
    write_or_check(OUT, doc, argv=[])
    print("wrote %s: %d cases" % (OUT, len(doc["cases"])))


if __name__ == "__main__":
    main(sys.argv[1:])
