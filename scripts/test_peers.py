#!/usr/bin/env python3
"""Self-test of the local peers started by with_peers.py (no pytest; exit 0 when every check passes).

    .venv/bin/python scripts/with_peers.py -- .venv/bin/python scripts/test_peers.py

Checks only the peers named in AUTHCORE_PEERS (so `--only oss,vending` works too):
  moto     signed STS GetCallerIdentity accepted; wrong secret -> 403 SignatureDoesNotMatch; unknown key
           -> 403 InvalidClientTokenId; unsigned -> refused; signed IAM and S3 (header auth) work;
           default-mode server accepts Cognito CreateUserPool and anything-signed STS.
  rclone   header-signed list/get of the seed object; presigned PUT/GET round trip with an odd key;
           tampered presigned URL, wrong secret, unknown key -> 403; expired presigned URL refused.
  oss      oss2 as the client: V1 header, V1 URL, V4 header, V4 URL (and V4 additional headers), each
           with the long-term pair and with the STS pair + token; put/get/head/list/delete; tampered
           signature -> 403 SignatureDoesNotMatch; token missing/wrong/unexpected -> 403; unknown key,
           expired URLs, wrong V4 region, skewed Date, anonymous -> 403; odd keys.
  vending  every path of token_vending_server.py; /sts credentials sign requests the OSS server accepts.
Prints one line per check; a failing check prints what it got and the script carries on, exit 1 at the end.
"""

import datetime
import email.utils
import logging
import os
import sys
import time
import traceback
import warnings
from unittest import mock

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

import boto3  # noqa: E402
import botocore.exceptions  # noqa: E402
import oss2  # noqa: E402
import oss2.auth  # noqa: E402
import requests  # noqa: E402
from botocore.config import Config  # noqa: E402
from oss2.credentials import StaticCredentialsProvider  # noqa: E402

E = os.environ
PEERS = set(filter(None, E.get("AUTHCORE_PEERS", "").split(",")))
FAILURES = []
COUNT = [0]
HTTP = requests.Session()
HTTP.trust_env = False  # loopback only, never a proxy


def check(name, fn):
    COUNT[0] += 1
    try:
        detail = fn()
    except Exception as e:  # noqa: BLE001
        FAILURES.append(name)
        print("FAIL  %s: %s: %s" % (name, type(e).__name__, e))
        if os.environ.get("TEST_PEERS_TRACE"):
            traceback.print_exc()
        return
    print("ok    %s%s" % (name, (" (" + detail + ")") if detail else ""))


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def client_error(fn):
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"].get("Code")
    raise AssertionError("request was accepted")


def cfg(**kw):
    return Config(retries={"total_max_attempts": 1}, **kw)


# ================================================================================================
# moto
# ================================================================================================
def test_moto():
    url, ak, sk, region = (E["AUTHCORE_MOTO_SIGNED_URL"], E["AUTHCORE_MOTO_ACCESS_KEY_ID"],
                           E["AUTHCORE_MOTO_SECRET_ACCESS_KEY"], E["AUTHCORE_MOTO_REGION"])

    def c(service, a=ak, s=sk, endpoint=url, **kw):
        return boto3.client(service, endpoint_url=endpoint, region_name=region, aws_access_key_id=a,
                            aws_secret_access_key=s, config=cfg(**kw))

    def signed_ok():
        arn = c("sts").get_caller_identity()["Arn"]
        expect(arn.endswith(":user/authcore-tests"), arn)
        return arn
    check("moto-signed: STS GetCallerIdentity signed with the IAM key -> 200", signed_ok)

    def wrong_secret():
        got = client_error(lambda: c("sts", s=sk[:-1] + ("x" if sk[-1] != "x" else "y")).get_caller_identity())
        expect(got == (403, "SignatureDoesNotMatch"), got)
        return "%s %s" % got
    check("moto-signed: wrong secret -> 403", wrong_secret)

    def unknown_key():
        got = client_error(lambda: c("sts", a="AKIAIOSFODNN7NOTKNOWN"[:20]).get_caller_identity())
        expect(got == (403, "InvalidClientTokenId"), got)
        return "%s %s" % got
    check("moto-signed: unknown key -> 403", unknown_key)

    def tampered():
        out = []
        def flip(req):
            a = req.headers["Authorization"]
            a = a.decode() if isinstance(a, bytes) else a
            req.headers["Authorization"] = a[:-1] + ("0" if a[-1] != "0" else "1")

        def grow(req):
            body = req.body.encode() if isinstance(req.body, str) else req.body
            req.body = body + b"&Extra=1"
            req.headers["Content-Length"] = str(len(req.body))
        for label, mutate in (("flipped signature char", flip), ("body changed after signing", grow)):
            client = c("sts")

            def hook(request, mutate=mutate, **_):
                mutate(request)
            client.meta.events.register("before-send.sts.GetCallerIdentity", hook)
            got = client_error(client.get_caller_identity)
            expect(got == (403, "SignatureDoesNotMatch"), (label, got))
            out.append(label)
        return ", ".join(out) + " -> 403 SignatureDoesNotMatch"
    check("moto-signed: request altered after signing -> 403", tampered)

    def unsigned():
        # moto routes an unsigned POST Action=GetCallerIdentity to S3 (not STS), whose auth check then
        # fails with an HTML 500 in signature mode: refused, but not with a 403.
        r = HTTP.post(url + "/", data="Action=GetCallerIdentity&Version=2011-06-15",
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
        expect(r.status_code >= 400, r.status_code)
        return "HTTP %d" % r.status_code
    check("moto-signed: unsigned GetCallerIdentity refused", unsigned)

    def iam_and_s3():
        users = [u["UserName"] for u in c("iam").list_users()["Users"]]
        expect("authcore-tests" in users, users)
        s3 = c("s3", s3={"addressing_style": "path"})
        s3.create_bucket(Bucket="authcore-signed")
        s3.put_object(Bucket="authcore-signed", Key="a b+ü.txt", Body=b"signed body")
        body = s3.get_object(Bucket="authcore-signed", Key="a b+ü.txt")["Body"].read()
        expect(body == b"signed body", body)
        bad = c("s3", s=sk[:-1] + ("x" if sk[-1] != "x" else "y"), s3={"addressing_style": "path"})
        got = client_error(lambda: bad.get_object(Bucket="authcore-signed", Key="a b+ü.txt"))
        expect(got[0] == 403, got)
        return "S3 wrong secret -> %s %s" % got
    check("moto-signed: signed IAM ListUsers and S3 put/get; S3 wrong secret refused", iam_and_s3)

    durl = E["AUTHCORE_MOTO_URL"]

    def cognito():
        idp = c("cognito-idp", a="AKIAIOSFODNN7EXAMPLE", s="dummy", endpoint=durl)
        pool = idp.create_user_pool(PoolName="authcore-test-pool")["UserPool"]
        expect(pool["Id"].startswith(region + "_"), pool["Id"])
        return pool["Id"]
    check("moto-default: Cognito CreateUserPool", cognito)

    def default_accepts_anything():
        arn = c("sts", a="AKIAANYTHINGGOES0000", s="whatever", endpoint=durl).get_caller_identity()["Arn"]
        return arn
    check("moto-default: any credentials accepted (no auth checks)", default_accepts_anything)


# ================================================================================================
# rclone
# ================================================================================================
def test_rclone():
    url, ak, sk, bucket, region, seed = (E["AUTHCORE_RCLONE_URL"], E["AUTHCORE_RCLONE_ACCESS_KEY_ID"],
                                         E["AUTHCORE_RCLONE_SECRET_ACCESS_KEY"], E["AUTHCORE_RCLONE_BUCKET"],
                                         E["AUTHCORE_RCLONE_REGION"], E["AUTHCORE_RCLONE_SEED_KEY"])

    def s3(a=ak, s=sk, r=region):
        return boto3.client("s3", endpoint_url=url, region_name=r, aws_access_key_id=a, aws_secret_access_key=s,
                            config=cfg(signature_version="s3v4", s3={"addressing_style": "path"}))

    def listing():
        keys = [o["Key"] for o in s3().list_objects_v2(Bucket=bucket).get("Contents", [])]
        expect(seed in keys, keys)
        body = s3().get_object(Bucket=bucket, Key=seed)["Body"].read()
        expect(body == b"hello from rclone\n", body)
        return "keys %s" % keys
    check("rclone: header-signed ListObjectsV2 + GetObject of the seed", listing)

    key = "dir/odd key +=~()ü😀.txt"

    def presigned():
        put = s3().generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=300)
        r = HTTP.put(put, data=b"presigned body")
        expect(r.status_code == 200, (r.status_code, r.text[:200]))
        get = s3().generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=300)
        r = HTTP.get(get)
        expect(r.status_code == 200 and r.content == b"presigned body", (r.status_code, r.content[:200]))
        sig = get.rsplit("=", 1)[1]
        r = HTTP.get(get[:-len(sig)] + ("0" if sig[0] != "0" else "1") + sig[1:])
        expect(r.status_code == 403 and b"SignatureDoesNotMatch" in r.content, (r.status_code, r.content[:200]))
        return "tampered -> 403 SignatureDoesNotMatch"
    check("rclone: presigned PUT/GET round trip; tampered URL -> 403", presigned)

    def header_put_get():
        s3().put_object(Bucket=bucket, Key="header put.txt", Body=b"header body")
        body = s3().get_object(Bucket=bucket, Key="header put.txt")["Body"].read()
        expect(body == b"header body", body)
        s3().delete_object(Bucket=bucket, Key="header put.txt")
    check("rclone: header-signed PutObject/GetObject/DeleteObject", header_put_get)

    def wrong():
        got1 = client_error(lambda: s3(s=sk[:-1] + "x").get_object(Bucket=bucket, Key=seed))
        got2 = client_error(lambda: s3(a="AKIAIOSFODNN7UNKNOWN").get_object(Bucket=bucket, Key=seed))
        expect(got1 == (403, "SignatureDoesNotMatch"), got1)
        expect(got2[0] == 403, got2)
        return "wrong secret %s %s, unknown key %s %s" % (got1 + got2)
    check("rclone: wrong secret / unknown key -> 403", wrong)

    def other_region():
        body = s3(r="eu-central-1").get_object(Bucket=bucket, Key=seed)["Body"].read()
        expect(body == b"hello from rclone\n", body)
        return "credential scope region not checked"
    check("rclone: signing region other than us-east-1 accepted", other_region)

    def expired():
        get = s3().generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": seed}, ExpiresIn=1)
        time.sleep(2.1)
        r = HTTP.get(get)
        expect(r.status_code in (400, 403), (r.status_code, r.content[:200]))
        return "HTTP %d %s" % (r.status_code, r.content.split(b"<Code>")[1].split(b"<")[0].decode()
                               if b"<Code>" in r.content else r.content[:80])
    check("rclone: expired presigned GET refused", expired)


# ================================================================================================
# OSS
# ================================================================================================
def test_oss():
    url, ak, sk, sak, ssk, tok, region, bucket_name = (
        E["AUTHCORE_OSS_URL"], E["AUTHCORE_OSS_ACCESS_KEY_ID"], E["AUTHCORE_OSS_ACCESS_KEY_SECRET"],
        E["AUTHCORE_OSS_STS_ACCESS_KEY_ID"], E["AUTHCORE_OSS_STS_ACCESS_KEY_SECRET"],
        E["AUTHCORE_OSS_SECURITY_TOKEN"], E["AUTHCORE_OSS_REGION"], E["AUTHCORE_OSS_BUCKET"])

    def auth(version, sts=False, a=None, s=None, t=None):
        if sts or t:
            prov = StaticCredentialsProvider(a or sak, s or ssk, t or tok)
        else:
            prov = StaticCredentialsProvider(a or ak, s or sk)
        return oss2.auth.ProviderAuthV4(prov) if version == "v4" else oss2.auth.ProviderAuth(prov)

    def bucket(au):
        return oss2.Bucket(au, url, bucket_name, region=region)

    def oss_error(fn):
        try:
            fn()
        except oss2.exceptions.OssError as e:
            return e.status, e.code
        raise AssertionError("request was accepted")

    keys = ["plain.txt", "dir/sub dir/a b+c=d&e?f#g.txt", "ünï/😀 x.bin", "~()!*'@,;$.txt"]
    for version in ("v1", "v4"):
        for sts in (False, True):
            label = "%s %s" % (version.upper(), "STS+token" if sts else "long-term")

            def header_mode(version=version, sts=sts):
                b = bucket(auth(version, sts))
                for i, k in enumerate(keys):
                    body = ("%s|%s|%d" % (version, sts, i)).encode()
                    b.put_object(k, body, headers={"x-oss-meta-Note": "a  b", "Content-Type": "text/plain"})
                    got = b.get_object(k).read()
                    expect(got == body, (k, got))
                    head = b.head_object(k)
                    expect(head.content_length == len(body), head.content_length)
                listed = [o.key for o in b.list_objects(prefix="dir/sub dir/").object_list]
                expect(listed == [keys[1]], listed)
                part = b.get_object(keys[0], byte_range=(0, 1)).read()
                expect(len(part) == 2, part)
                for k in keys:
                    b.delete_object(k)
                expect(not b.object_exists(keys[0]), "deleted object still there")
                return "%d keys" % len(keys)
            check("oss: %s header: put/get/head/list/range/delete" % label, header_mode)

            def url_mode(version=version, sts=sts):
                b = bucket(auth(version, sts))
                k = keys[1]
                r = HTTP.put(b.sign_url("PUT", k, 120, headers={"Content-Type": "text/plain"}),
                             data=b"via url", headers={"Content-Type": "text/plain"})
                expect(r.status_code == 200, (r.status_code, r.text[:300]))
                r = HTTP.get(b.sign_url("GET", k, 120))
                expect(r.status_code == 200 and r.content == b"via url", (r.status_code, r.text[:300]))
                r = HTTP.get(b.sign_url("GET", k, 120, params={"response-content-type": "x/y z"}))
                expect(r.status_code == 200 and r.headers["Content-Type"] == "x/y z",
                       (r.status_code, r.headers.get("Content-Type"), r.text[:300]))
                u = b.sign_url("GET", k, 120)
                name = "Signature=" if version == "v1" else "x-oss-signature="
                head, sig = u.split(name)
                r = HTTP.get(head + name + ("A" if sig[0] != "A" else "B") + sig[1:])
                expect(r.status_code == 403 and "SignatureDoesNotMatch" in r.text, (r.status_code, r.text[:300]))
                r = HTTP.delete(b.sign_url("DELETE", k, 120))
                expect(r.status_code == 204, (r.status_code, r.text[:300]))
                return "tampered -> 403 SignatureDoesNotMatch"
            check("oss: %s URL: PUT/GET/response-content-type/DELETE; tampered -> 403" % label, url_mode)

    def v4_additional_headers():
        out = []
        for sts in (False, True):
            au = auth("v4", sts)
            b = bucket(au)
            b.put_object("addl.txt", b"0123456789")
            # header mode: only through _sign_request(in_additional_headers=...) (Bucket never passes them)
            req = oss2.http.Request("GET", url + "/" + bucket_name + "/addl.txt",
                                    headers={"Range": "bytes=2-4", "Host": url.split("//")[1]},
                                    region=region, product="oss")
            au._sign_request(req, bucket_name, "addl.txt", in_additional_headers=["range", "host"])
            expect("AdditionalHeaders=host;range" in req.headers["authorization"], req.headers["authorization"])
            r = HTTP.get(req.url, headers=dict(req.headers))
            expect(r.status_code == 206 and r.content == b"234", (r.status_code, r.text[:300]))
            r = HTTP.get(req.url, headers=dict(req.headers, Range="bytes=3-5"))
            expect(r.status_code == 403 and "SignatureDoesNotMatch" in r.text, (r.status_code, r.text[:200]))
            # URL mode (StsAuth cannot, ProviderAuthV4 can)
            u = b.sign_url("GET", "addl.txt", 60, headers={"Range": "bytes=0-0"}, additional_headers=["range"])
            expect("x-oss-additional-headers=range" in u, u)
            r = HTTP.get(u, headers={"Range": "bytes=0-0"})
            expect(r.status_code == 206 and r.content == b"0", (r.status_code, r.text[:300]))
            r = HTTP.get(u, headers={"Range": "bytes=1-1"})
            expect(r.status_code == 403, (r.status_code, r.text[:200]))
            b.delete_object("addl.txt")
            out.append("ok")
        return "changed Range after signing -> 403"
    check("oss: V4 AdditionalHeaders (header and URL, both pairs)", v4_additional_headers)

    def token_rules():
        got = []
        # STS key without token
        got.append(oss_error(lambda: bucket(auth("v1", a=sak, s=ssk)).get_object("x")))
        got.append(oss_error(lambda: bucket(auth("v4", a=sak, s=ssk)).get_object("x")))
        # wrong token
        got.append(oss_error(lambda: bucket(auth("v1", t=tok + "x")).get_object("x")))
        got.append(oss_error(lambda: bucket(auth("v4", t=tok[:-4])).get_object("x")))
        # long-term key with a token
        got.append(oss_error(lambda: bucket(auth("v4", a=ak, s=sk, t=tok)).get_object("x")))
        expect(all(g == (403, "InvalidSecurityToken") for g in got), got)
        # URL without the token
        for v in ("v1", "v4"):
            u = bucket(auth(v, True)).sign_url("GET", "x", 60)
            param = "security-token=" if v == "v1" else "x-oss-security-token="
            parts = [p for p in u.split("?", 1)[1].split("&") if not p.startswith(param)]
            r = HTTP.get(u.split("?")[0] + "?" + "&".join(parts))
            expect(r.status_code == 403 and "InvalidSecurityToken" in r.text, (v, r.status_code, r.text[:200]))
        return "all 403 InvalidSecurityToken"
    check("oss: token missing / wrong / unexpected -> 403", token_rules)

    def wrong_credentials():
        got = [oss_error(lambda: bucket(auth(v, a=ak, s=sk[:-1] + "X")).get_object("x")) for v in ("v1", "v4")]
        expect(all(g == (403, "SignatureDoesNotMatch") for g in got), got)
        got = [oss_error(lambda: bucket(auth(v, a="LTAI5tNoSuchKeyAtAll00", s=sk)).get_object("x"))
               for v in ("v1", "v4")]
        expect(all(g == (403, "InvalidAccessKeyId") for g in got), got)
        r = HTTP.get(url + "/" + bucket_name + "/x")
        expect(r.status_code == 403 and "AccessDenied" in r.text, (r.status_code, r.text[:200]))
        got = oss_error(lambda: oss2.Bucket(oss2.AuthV4(ak, sk), url, bucket_name, region="cn-beijing").get_object("x"))
        expect(got == (403, "SignatureDoesNotMatch"), got)
        return "wrong secret, unknown key, anonymous, wrong V4 region"
    check("oss: wrong secret / unknown key / anonymous / wrong region -> 403", wrong_credentials)

    def expired():
        b1, b4 = bucket(auth("v1")), bucket(auth("v4"))
        b1.put_object("exp.txt", b"e")
        past = time.time() - 7200
        with mock.patch("time.time", return_value=past):
            u1 = b1.sign_url("GET", "exp.txt", 60)

        class Past(datetime.datetime):
            @classmethod
            def utcnow(cls):
                return datetime.datetime.utcfromtimestamp(past)
        with mock.patch.object(oss2.auth, "datetime", Past):
            u4 = b4.sign_url("GET", "exp.txt", 60)
        for u in (u1, u4):
            r = HTTP.get(u)
            expect(r.status_code == 403 and "AccessDenied" in r.text and "Request has expired" in r.text,
                   (r.status_code, r.text[:300]))
        b1.delete_object("exp.txt")
        return "V1 and V4 URL -> 403 AccessDenied 'Request has expired.'"
    check("oss: expired signed URLs -> 403", expired)

    def skew():
        au = auth("v1")
        req = oss2.http.Request("GET", url + "/" + bucket_name + "/skew.txt", region=region, product="oss")
        with mock.patch("oss2.utils.http_date", return_value=email.utils.formatdate(time.time() - 3600,
                                                                                  usegmt=True)):
            au._sign_request(req, bucket_name, "skew.txt")
        r = HTTP.get(req.url, headers=dict(req.headers))
        expect(r.status_code == 403 and "RequestTimeTooSkewed" in r.text, (r.status_code, r.text[:300]))
        return "Date 1 h old"
    check("oss: skewed V1 Date -> 403 RequestTimeTooSkewed", skew)

    def error_body():
        r = HTTP.get(bucket(auth("v4", a=ak, s=sk + "x")).sign_url("GET", "k", 60))
        expect(r.headers["Content-Type"] == "application/xml", r.headers)
        for tag in ("<Error>", "<Code>SignatureDoesNotMatch</Code>", "<Message>", "<RequestId>",
                    "<StringToSign>", "<CanonicalRequest>"):
            expect(tag in r.text, (tag, r.text[:400]))
    check("oss: SignatureDoesNotMatch body is OSS XML with StringToSign/CanonicalRequest", error_body)

    def service_list():
        names = [b.name for b in oss2.Service(oss2.AuthV4(ak, sk), url, region=region).list_buckets().buckets]
        expect(bucket_name in names, names)
        return ",".join(names)
    check("oss: V4 ListBuckets (service level, empty bucket name)", service_list)


# ================================================================================================
# token vending
# ================================================================================================
def test_vending():
    url = E["AUTHCORE_VENDING_URL"]

    def parse_exp(s):
        return datetime.datetime.strptime(s.replace(".123Z", "Z"), "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc)

    def now():
        return datetime.datetime.now(datetime.timezone.utc)

    def sts():
        r = HTTP.get(url + "/sts")
        d = r.json()
        expect(r.status_code == 200 and d["StatusCode"] == 200, (r.status_code, d))
        expect(set(d) == {"StatusCode", "AccessKeyId", "AccessKeySecret", "SecurityToken", "Expiration"}, d)
        expect(d["AccessKeyId"].startswith("STS."), d)
        left = (parse_exp(d["Expiration"]) - now()).total_seconds()
        expect(3590 < left <= 3600 and d["Expiration"].endswith("Z") and "." not in d["Expiration"], d)
        return d["Expiration"]
    check("vending: /sts", sts)

    def variants():
        d = HTTP.get(url + "/sts/fractional").json()
        expect(d["Expiration"].endswith(".123Z") and 3590 < (parse_exp(d["Expiration"]) - now()).total_seconds(), d)
        d = HTTP.get(url + "/sts/short").json()
        expect(80 < (parse_exp(d["Expiration"]) - now()).total_seconds() <= 90, d)
        d = HTTP.get(url + "/sts/expired").json()
        expect((parse_exp(d["Expiration"]) - now()).total_seconds() < 0, d)
        r = HTTP.get(url + "/sts/non200")
        expect(r.status_code == 500 and r.json()["StatusCode"] == 500 and r.json()["ErrorCode"], r.text)
        r = HTTP.get(url + "/sts/status-mismatch")
        expect(r.status_code == 200 and r.json()["StatusCode"] == 403, r.text)
        r = HTTP.get(url + "/sts/missing-secret")
        expect(r.status_code == 200 and "AccessKeySecret" not in r.json(), r.text)
        r = HTTP.get(url + "/sts/bad-json")
        expect(r.status_code == 200 and r.text == "{not json", r.text)
        r = HTTP.get(url + "/sts/wrong-type")
        expect(isinstance(r.json()["AccessKeyId"], int), r.text)
        r = HTTP.get(url + "/sts/nope")
        expect(r.status_code == 404, r.status_code)
    check("vending: fractional/short/expired/non200/status-mismatch/missing-secret/bad-json/wrong-type/404",
          variants)

    def counter():
        HTTP.get(url + "/sts/counter/reset")
        ids = [HTTP.get(url + "/sts/counter").json()["AccessKeyId"] for _ in range(3)]
        expect(ids == ["STS.counter-1", "STS.counter-2", "STS.counter-3"], ids)
        n = HTTP.get(url + "/sts/counter/count").json()["count"]
        expect(n == 3, n)
        return ",".join(ids)
    check("vending: /sts/counter and /sts/counter/count", counter)

    def slow():
        t = time.monotonic()
        r = HTTP.get(url + "/sts/slow")
        dt = time.monotonic() - t
        expect(r.status_code == 200 and 1.9 < dt < 4, (r.status_code, dt))
        return "%.2f s" % dt
    check("vending: /sts/slow", slow)

    if "oss" in PEERS:
        def vended_creds_sign():
            d = HTTP.get(url + "/sts").json()
            for v in ("v1", "v4"):
                b = oss2.Bucket(oss2.StsAuth(d["AccessKeyId"], d["AccessKeySecret"], d["SecurityToken"],
                                             auth_version=v), E["AUTHCORE_OSS_URL"], E["AUTHCORE_OSS_BUCKET"],
                                region=E["AUTHCORE_OSS_REGION"])
                b.put_object("vended.txt", b"v")
                expect(b.get_object("vended.txt").read() == b"v", "get")
                b.delete_object("vended.txt")
        check("vending+oss: credentials from /sts sign V1 and V4 requests the OSS server accepts",
              vended_creds_sign)


def main():
    if not PEERS:
        print("test_peers: AUTHCORE_PEERS is not set; run under scripts/with_peers.py", file=sys.stderr)
        return 2
    t = time.monotonic()
    for name, fn in (("moto", test_moto), ("rclone", test_rclone), ("oss", test_oss), ("vending", test_vending)):
        if name in PEERS:
            fn()
    print("%d checks, %d failed, %.1f s" % (COUNT[0], len(FAILURES), time.monotonic() - t))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
