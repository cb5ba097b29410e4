#!/usr/bin/env python3
"""Writes the seed corpus of every authcore-fuzz target into Fuzz/corpus/<target>/ from the committed
vectors (vectors/*.json) and the Cognito transcript fixtures, in each target's input format (see
Fuzz/AuthCoreFuzz/Targets.swift). Deterministic: file names are the SHA-1 of the content, so running
it again changes nothing. Usage: python3 scripts/make_fuzz_corpus.py
"""

import base64
import glob
import hashlib
import json
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fuzz", "corpus")
SEEDS = {}


def add(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    SEEDS.setdefault(target, set()).add(bytes(data))


def cases(name):
    with open(os.path.join(ROOT, "vectors", name)) as f:
        return json.load(f)["cases"]


def timestamps():
    for text in ["20150830T123600Z", "Sat, 14 Mar 2026 15:09:26 GMT", "2026-11-29T21:39:33.894375Z", "2026-11-29T22:39:33+01:00",
                 "00010101T000000Z", "99991231T235959Z", "Mon, 01 Jan 0001 00:00:00 GMT", "0001-01-01T00:00:00Z"]:
        add("timestamp", text)
    for seconds, offset in [(0, 0), (-62135596800, -1), (253402300799, 1), (2**63 - 1, 2**63 - 1), (-2**63, -2**63)]:
        add("timestamp", struct.pack(">qqq", seconds, offset, 999999999))
    for c in cases("sigv4-aws-suite.json"):
        add("timestamp", c["timestamp"])
    for c in cases("oss-oss2.json"):
        add("timestamp", str(c.get("timestamp", "")))


def skew():
    bodies = [
        "<Error><Code>RequestTimeTooSkewed</Code><Message>too skewed</Message></Error>",
        "<Error><Code>SignatureDoesNotMatch</Code><Message>Signature expired: 20130524T000000Z is now earlier than 20130524T000100Z</Message></Error>",
        '{"__type":"InvalidSignatureException","message":"Signature not yet current: 20130524T000000Z is still later than 20130523T235000Z"}',
        "<Error><Code>AccessDenied</Code><Message>The difference between the request time and the server's time exceeds the maximum allowed.</Message></Error>",
    ]
    for status, body in zip([103, 103, 100, 100], bodies):  # 300 + status byte: 403, 403, 400, 400
        for date in ["Tue, 01 Dec 2026 01:00:00 GMT", "Mon, 01 Jan 0000 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT"]:
            add("skew", bytes([status, 200]) + date.encode() + b"\0" + body.encode())


def credentials():
    vending = {"StatusCode": 200, "AccessKeyId": "STS.A", "AccessKeySecret": "s", "SecurityToken": "t", "Expiration": "2026-12-01T01:00:00Z"}
    identity = {"IdentityId": "us-east-1:x", "Credentials": {"AccessKeyId": "A", "SecretKey": "s", "SessionToken": "t", "Expiration": 1796000000.5}}
    sts = ("<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIA</AccessKeyId>"
           "<SecretAccessKey>s</SecretAccessKey><SessionToken>t</SessionToken><Expiration>2026-12-01T01:00:00.123456Z</Expiration>"
           "</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>")
    for body in [json.dumps(vending), json.dumps(identity), sts, json.dumps(dict(vending, Expiration=1e300)), json.dumps(dict(vending, StatusCode=1e300))]:
        add("credentials-json", b"\0" + body.encode())
    add("credentials-json", b"\4" + b'{"__type":"NotAuthorizedException","message":"no"}')


def cognito():
    flows = {"USER_SRP_AUTH": 0, "USER_PASSWORD_AUTH": 1, "CUSTOM_AUTH": 2, "USER_AUTH": 4}
    for path in sorted(glob.glob(os.path.join(ROOT, "Tests", "AuthCoreClientsTests", "Fixtures", "cognito", "*.json"))):
        with open(path) as f:
            transcript = json.load(f)
        steps = transcript.get("steps", [])
        if not steps:
            continue
        first = steps[0]["request"]["body"]
        flow = flows.get(first.get("AuthFlow"), 0)
        if first.get("AuthFlow") == "CUSTOM_AUTH" and "SRP_A" not in first.get("AuthParameters", {}):
            flow = 3
        data = bytes([flow])
        for step in steps[:4]:
            response = step["response"]
            data += bytes([0 if response["status"] == 200 else 1]) + json.dumps(response["body"]).encode() + b"\xff"
        add("cognito-sign-in", data)


def codecs():
    for c in cases("srp6a-pysrp.json")[:20]:
        for key in ("salt_hex", "a_hex", "b_hex"):
            add("codecs", c[key])
    for c in cases("oss-oss2.json")[:20]:
        signature = c["expect"].get("signature")
        if signature:
            add("codecs", signature)
    for text in ["", "00", "0", "QUJD", "QUI=", "QQ==", "QUJ", "-_8", "AB=C"]:
        add("codecs", text)


def sigv4_request_input(c):
    """A vector case's request as the SigV4 fuzz targets read one (fuzzedSigV4Request): a flags byte
    (bit 0 S3, then the method), the path, the query, then header names and values, NUL-terminated."""
    request = c["request"]
    path, _, query = request["uri"].partition("?")
    flags = (1 if c.get("service") == "s3" else 0) | (["GET", "PUT", "POST", "DELETE"].index(request["method"]) << 1
                                                     if request["method"] in ("GET", "PUT", "POST", "DELETE") else 0)
    data = bytes([flags]) + path.encode() + b"\0" + query.encode() + b"\0"
    for name, value in request["headers"]:
        if name.lower() != "host":
            data += name.encode() + b"\0" + value.encode() + b"\0"
    return data


def urls_and_signing():
    for c in cases("sigv4-aws-suite.json") + cases("sigv4-botocore.json"):
        request = c["request"]
        host = dict((h[0].lower(), h[1]) for h in request["headers"]).get("host", "example.amazonaws.com")
        add("request-url", "https://" + host + request["uri"])
        add("sigv4-canonical", sigv4_request_input(c))
    for c in cases("sigv4a-aws-suite.json") + cases("sigv4a-awscrt.json"):
        if c.get("options", {}).get("mode") != "query":  # the region set first, then the request
            add("sigv4a-canonical", c["region_set"].encode() + b"\0" + sigv4_request_input(c))
    for region_set in ["", ",", "us-east-1,", "a b", "us/east", "\u00e9u-west-1", "*,*", "x" * 300]:
        add("sigv4a-canonical", region_set.encode() + b"\0\0/\0\0")
    for text in ["http://127.0.0.1:8080/x?y", "https://[::1]:443/", "https://bucket.s3.amazonaws.com/a%20b+c", "http://h:80"]:
        add("request-url", text)
    for c in cases("oss-oss2.json"):
        request = c["request"]
        _, _, query = request["uri"].partition("?")
        data = bytes([1 if c.get("version") == "v4" else 0]) + request.get("key", "").encode() + b"\0" + query.encode() + b"\0"
        for name, value in request["headers"]:
            data += name.encode() + b"\0" + value.encode() + b"\0"
        add("oss-sign", data)
    # The signing authority: V1 strings to sign from the oss2 vectors (allowed and refused ones), and
    # V4 string-to-sign/canonical-request pairs; the date is the fuzz target's fixed clock.
    date = "Tue, 01 Dec 2026 00:00:00 GMT"
    for line in ["GET\n\n\n%s\n/bucket/users/alice/a.txt" % date, "PUT\n\ntext/plain\n%s\nx-oss-meta-a:1\n/bucket/users/alice/b?uploadId=1&partNumber=2" % date,
                 "GET\n\n\n1796169600\n/bucket/users/alice/c", "GET\n\n\n%s\n/bucket/users/bob/a" % date, "DELETE\n\n\n%s\n/bucket/users/alice/a" % date]:
        add("oss-authority", b"\0" + line.encode() + b"\0")
    for c in cases("oss-oss2.json"):
        if c.get("version") == "v1" and "string_to_sign" in c["expect"]:
            add("oss-authority", b"\0" + c["expect"]["string_to_sign"].encode() + b"\0")
    amz = "20261201T000000Z"
    scope = "20261201/cn-hangzhou/oss/aliyun_v4_request"
    for canonical in ["GET\n/bucket/users/alice/a\n\nx-oss-content-sha256:UNSIGNED-PAYLOAD\nx-oss-date:%s\n\n\nUNSIGNED-PAYLOAD" % amz,
                      "GET\n/bucket/users/alice/a\nx-oss-credential=LTAIEXAMPLE%%2F%s&x-oss-date=%s&x-oss-expires=600&x-oss-signature-version=OSS4-HMAC-SHA256\n\n\nUNSIGNED-PAYLOAD"
                      % (scope.replace("/", "%2F"), amz),
                      "GET\n/bucket/users/alice/a\n=\nx-oss-date:%s\n\n\nUNSIGNED-PAYLOAD" % amz]:
        sts = "OSS4-HMAC-SHA256\n%s\n%s\n%s" % (amz, scope, hashlib.sha256(canonical.encode()).hexdigest())
        add("oss-authority", b"\1" + sts.encode() + b"\0" + canonical.encode() + b"\0")
    for c in cases("aliyun-rpc-sdkcore.json"):
        data = bytes([1 if c["method"] == "GET" else 0]) + b"/\0"
        for k, v in sorted(c["parameters"].items())[:12]:
            data += k.encode() + b"\0" + v.encode() + b"\0"
        add("aliyun-sign", data)
    for c in cases("aliyun-acs3-openapi-util.json"):
        data = b"\2" + c["request"]["uri"].encode() + b"\0"
        for name, value in c["request"]["headers"]:
            data += name.encode() + b"\0" + value.encode() + b"\0"
        add("aliyun-sign", data)


# RFC 5054 Appendix A, the 3072-bit group's N.
RFC5054_3072 = bytes.fromhex(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
    "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
    "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF")


def srp_and_bigint():
    for c in cases("srp6a-pysrp.json"):
        if c["group"] != "rfc5054-3072":
            continue
        expect = c["expect"]
        a, b, v = (bytes.fromhex(x.rjust(len(x) + len(x) % 2, "0")) for x in (c["a_hex"], c["b_hex"], expect["v_hex"]))
        add("srp-public", a + b"\xff" + b + b"\xff" + v[:384] + b"\xff" + bytes.fromhex(expect.get("B_hex", expect.get("b_pub_hex", "00"))[:768].rjust(2, "0")))
    add("srp-public", b"\x01\xff\x01\xff\x02\xff")
    for c in cases("srp6a-srptools.json"):
        if c["hash"] != "sha256":
            continue
        n, a, b, salt = (bytes.fromhex(x.rjust(len(x) + len(x) % 2, "0")) for x in (c["N_hex"], c["a_hex"], c["b_hex"], c["salt_hex"]))
        add("srp-any-length", n + b"\xff" + a[:64] + b"\xff" + b[:64] + b"\xff" + salt + b"\xff" + c["password"].encode())
    for modulus, base, exponent, other in [(b"\x0b", b"\x02", b"\x0a", b"\x05"), (b"\xff" * 32, b"\x03" * 40, b"\x01" * 32, b"\x07" * 20),
                                           (b"\xc5" * 128, b"\x02", b"\xff" * 64, b"")]:
        add("bigint", modulus + b"\xff" + base + b"\xff" + exponent + b"\xff" + other)
    # secret-power: declared-length byte, modulus, base (up to N's limb width, not reduced), exponent.
    for c in cases("srp6a-srptools.json")[:6]:
        n, a = (bytes.fromhex(x.rjust(len(x) + len(x) % 2, "0")) for x in (c["N_hex"], c["a_hex"]))
        add("secret-power", b"\x03" + n + b"\xff" + b"\xfe" * len(n) + b"\xff" + a)
    rfc3072 = RFC5054_3072
    for declared, base, exponent in [(0, b"\x02", b"\x01" + b"\xa5" * 63), (1, b"", b"\xff" * 64), (255, b"\xff" * 384, b""),
                                     (40, b"\x00" * 10 + b"\x07", b"\x00\x00\x80")]:
        add("secret-power", bytes([declared]) + rfc3072 + b"\xff" + base + b"\xff" + exponent)
    add("secret-power", b"\x00\x03\xff\x02\xff\x05")


def vector_files():
    for path in sorted(glob.glob(os.path.join(ROOT, "vectors", "*.json"))):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) <= 8192:
            add("vectors", data)
        else:
            document = json.loads(data)
            add("vectors", json.dumps({"kind": document["kind"], "cases": document["cases"][:2]}).encode())


def cognito_stored():
    session = {"version": 1, "region": "us-east-1", "userPoolId": "us-east-1_Abc123", "clientId": "c", "username": "alice",
               "idToken": "a.b.c", "accessToken": "d.e.f", "refreshToken": "r", "expiresAt": "2026-12-01T01:00:00Z"}
    add("cognito-stored", b"\0" + json.dumps(session).encode())
    add("cognito-stored", b"\0" + json.dumps(dict(session, expiresAt="99999-01-01T00:00:00Z")).encode())
    pending = {"version": 1, "flow": "custom-without-srp", "challengeName": "CUSTOM_CHALLENGE", "username": "alice", "parameters": {"q": "?"},
               "clientMetadata": {}, "privateValueBitCount": 256, "region": "us-east-1", "userPoolId": "us-east-1_Abc123", "clientId": "c",
               "typedUsername": "alice", "session": "s", "selectedFactor": "PASSWORD"}
    add("cognito-stored", b"\1" + json.dumps(pending).encode())
    add("cognito-stored", b"\2" + json.dumps({"version": "1.3", "auth": {"aws_region": "us-east-1", "user_pool_id": "us-east-1_A",
                                                                         "user_pool_client_id": "c", "mfa_methods": ["TOTP"]}}).encode())
    header = base64.urlsafe_b64encode(json.dumps({"alg": "RS256", "kid": "k1"}).encode()).rstrip(b"=")
    claims = base64.urlsafe_b64encode(json.dumps({"iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Abc123",
                                                  "token_use": "access", "client_id": "client", "exp": 1796200000}).encode()).rstrip(b"=")
    jwks = {"keys": [{"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig", "e": "AQAB",
                      "n": base64.urlsafe_b64encode(b"\xc3" * 256).rstrip(b"=").decode()}]}
    add("cognito-stored", b"\3" + json.dumps(jwks).encode() + b"\0" + header + b"." + claims + b"." + b"A" * 342)


def identity():
    def field(data):  # ByteReader.field(): up to a NUL
        return data + b"\0"

    def jwt(claims):
        segment = lambda doc: base64.urlsafe_b64encode(json.dumps(doc).encode()).rstrip(b"=")
        return segment({"alg": "RS256", "kid": "k1"}) + b"." + segment(claims) + b".c2ln"

    id_token = jwt({"iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Abc123", "token_use": "id", "sub": "s", "aud": "c"})
    get_id = json.dumps({"IdentityId": "us-east-1:guest"}).encode()
    credentials = json.dumps({"IdentityId": "us-east-1:guest", "Credentials": {
        "AccessKeyId": "ASIA1", "SecretKey": "s", "SessionToken": "t", "Expiration": 1800000000.5}}).encode()
    for token in [id_token, jwt({"iss": "https://cognito-identity.amazonaws.com", "sub": "x"}), jwt({"token_use": "access"}), b"opaque"]:
        add("identity", field(token) + field(get_id) + b"\0" + credentials)
    add("identity", field(id_token) + field(get_id) + b"\xc8" + json.dumps({"__type": "ResourceNotFoundException"}).encode())
    add("identity", field(id_token) + field(b"{}") + b"\0" + b"[]")


def http1_responses():
    # cap byte, method byte (odd: HEAD), piece-size byte, then the response as received.
    answers = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n1 \r\n \r\n0\r\nX-T: 1\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nhi",
        b"HTTP/1.0 200 OK\r\n\r\nuntil the end",
        b"HTTP/1.1 204 No Content\r\nDate: Tue, 01 Dec 2026 00:00:00 GMT\r\n\r\n",
        b"HTTP/1.1 403 Forbidden\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
        b"HTTP/1.1 200 OK\r\nContent-Length: 999999\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\nffffffffffffffff\r\n",
    ]
    for answer in answers:
        add("http1-response", b"\x10\x00\x07" + answer)
        add("http1-response", b"\xff\x01\x01" + answer)


def app_server():
    # Even first byte: a configuration file. Odd: path byte, method byte, token length, token, body.
    configurations = [
        b'{"srp":{"verifiersFile":"u.json"}}',
        b'{"srp":{"group":2048,"hash":"sha512","verifiersFile":"/u.json","maximumFailures":3},"store":{"redis":{"port":6390}},'
        b'"listen":{"port":8080,"certificateFile":"c","privateKeyFile":"k"},"sessionLifetimeSeconds":60,'
        b'"distributeToken":{"roleArn":"acs:ram::1:role/r","signatureStyle":"acs3","sharedAcrossUsers":true},"ossSigning":{"buckets":["b"],"keyPrefixes":["k/${username}/"]},'
        b'"developerIdentity":{"region":"us-east-1","identityPoolId":"p","providerName":"n"}}',
        b'{"srp":{"verifiersFile":"u"},"listen":{"port":1e300}}',
    ]
    for configuration in configurations:
        add("app-server", b"\x00" + configuration)
    a = b"02"
    add("app-server", b"\x01\x00\x00\x00" + b'{"username":"alice","A":"' + a + b'"}')
    add("app-server", b"\x01\x00\x00\x00" + b'{"username":"nobody","A":"0123456789abcdef"}')
    add("app-server", b"\x01\x01\x00\x00" + b'{"loginId":"00112233445566778899aabbccddeeff","M1":"' + b"00" * 32 + b'"}')
    add("app-server", b"\x01\x03\x00\x2b" + b"A" * 43 + b'{"version":"v1","stringToSign":"GET\n\n\n0\n/b/k/x"}')
    add("app-server", b"\x01\x02\x01\x00")
    add("app-server", b"\x01\x07\x00\x2b" + b"A" * 43 + b'{"all":true}')
    add("app-server", b"\x01\x04\x00\x2b" + b"A" * 43 + b'{"identityId":"us-east-1:11111111-2222-3333-4444-555555555555"}')
    add("app-server", b"\x01\x00\x00\x00" + b'{"username":"alice","A":"02","deviceToken":"AAAA"}')


def secret_json():
    # Answers with secret members (the scanner's paths: Credentials.SecretKey, AccessKeySecret), escapes, nesting.
    documents = [
        {"IdentityId": "us-east-1:x", "Credentials": {"AccessKeyId": "ASIA1", "SecretKey": "s\"e\\c/r\u00e9t\n", "SessionToken": "t",
                                                      "Expiration": 1.8e9}},
        {"StatusCode": 200, "AccessKeyId": "STS.1", "AccessKeySecret": "\U0001F600", "SecurityToken": "t", "Expiration": "2026-12-01T00:00:00Z"},
        {"SecretKey": "top", "List": [{"Credentials": {"SecretKey": "in-array"}}], "Credentials": {"SecretKey": 5}},
        [1, -0.5e+10, True, False, None, "", {}, []],
    ]
    for document in documents:
        add("secret-json", json.dumps(document).encode())
        add("secret-json", json.dumps(document, indent=2, ensure_ascii=False).encode())
    add("secret-json", b'{"Credentials":{"Secret\\u004bey":"escaped","SecretKey":"twice"}}')
    add("secret-json", b'\xef\xbb\xbf{"AccessKeySecret":"bom"}')


def server_input():
    # 0: header fields name\0value\0...; 1: a verifier table; 2: name\0template\0flag; 3: address bytes.
    for fields in [[b"Host", b"x", b"Content-Length", b"5"], [b"Content-Length", b"5", b"Content-Length", b"5"],
                   [b"Content-Length", b"5", b"Transfer-Encoding", b"chunked"], [b"Transfer-Encoding", b"gzip, chunked"],
                   [b"X-Atwo three", b"one"], [b"Content-Length0", b"5"], [b"Content-Length", b" 12 "], [b"Host", b"a", b"Host", b"b"]]:
        add("server-input", b"\x00" + b"\x00".join(fields) + b"\x00")
    tables = [
        b'{"users":{"alice":{"salt_hex":"0011","verifier_hex":"0f0f"}}}',
        b'{"users":{"jos\\u00e9":{"salt_hex":"0011","verifier_hex":"0f"},"jose\\u0301":{"salt_hex":"0011","verifier_hex":"0e"}}}',
        b'{"users":{"a":{"salt_hex":"00","verifier_hex":"01"},"b":{"salt_hex":"0000","verifier_hex":"0f"}}}',
        b'{"users":{"a":{"salt_hex":"00","verifier_hex":"02"},"a":{"salt_hex":"00","verifier_hex":"03"}}}',
    ]
    for table in tables:
        add("server-input", b"\x01" + table)
    for name, template in [(b"alice", b"users/${username}/"), (b"*", b"${username}/"), (b"a/b", b"x/${username}/"), (b"users", b"${username}/")]:
        add("server-input", b"\x02" + name + b"\x00" + template + b"\x00\x01")
    add("server-input", b"\x03\x00\x7f\x00\x00\x02\x18")
    add("server-input", b"\x03\x01" + bytes(10) + b"\xff\xff\x7f\x00\x00\x01\x40")
    add("server-input", b"\x03\x01\x20\x01\x0d\xb8" + bytes(12) + b"\x30")


def aws_config():
    files = [
        "[default]\naws_access_key_id = AKID\naws_secret_access_key = s\n",
        "# c\n; c\n[DEFAULT]\nshared = 1\n[profile \"a b\"]\nKey: v\nmulti = one\n  two\n\n  three\ns3 =\n  addressing_style = path\n",
        "[profile admin]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = user\ncredential_process = /bin/echo 'x y' \"z\\\" w\"\n",
        "[a]]\r\nk=v\r\n[services s]\nsts =\n  endpoint_url = http://127.0.0.1:1\n",
    ]
    for text in files:
        add("aws-config", b"\0" + text.encode())
    for output in [{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "s", "SessionToken": "t", "Expiration": "2027-01-01T00:00:00Z"},
                   {"Version": 2, "AccessKeyId": "A", "SecretAccessKey": "s"}, {"Version": 1.0, "AccessKeyId": "A"}]:
        add("aws-config", b"\1" + json.dumps(output).encode())
    for path in ["~/.aws/config", "$HOME/${A}/$B/~", "${unclosed", "$"]:
        add("aws-config", b"\2" + path.encode())


def main():
    # The input that stopped `make fuzz` in request-url (issue 36): a credential parameter in the query.
    add("request-url", b"https://azonaws.com/?a_b=1&x-oss-security-token=&XAmz-Foo=7&x-amb=8")
    server_input()
    aws_config()
    secret_json()
    app_server()
    http1_responses()
    identity()
    cognito_stored()
    timestamps()
    skew()
    credentials()
    cognito()
    codecs()
    urls_and_signing()
    srp_and_bigint()
    vector_files()
    for target, seeds in sorted(SEEDS.items()):
        directory = os.path.join(OUT, target)
        os.makedirs(directory, exist_ok=True)
        for seed in seeds:
            with open(os.path.join(directory, hashlib.sha1(seed).hexdigest()), "wb") as f:
                f.write(seed)
        print(f"{target}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
