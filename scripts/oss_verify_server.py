#!/usr/bin/env python3
"""A local Alibaba Cloud OSS endpoint that verifies every request's signature with oss2's own code.

For integration tests: the signature of each request is recomputed by oss2 2.19.1 (the name-mangled
private methods of oss2.auth.ProviderAuth / ProviderAuthV4, fed with a request object rebuilt from what
arrived on the wire and the credentials configured here); nothing is re-implemented, so a request is
accepted exactly when oss2 would have produced the same signature for it.

Addressing: path style only, ``http://127.0.0.1:PORT/<bucket>/<key>?<query>``, as oss2 uses for an IP
endpoint. The path is percent-decoded as UTF-8 (keys may contain spaces, ``+``, ``/``, non-ASCII; a
literal ``+`` in the path is a plus). Query components are form-decoded: ``+`` means a space (oss2 itself
sends parameters through requests' urlencode, e.g. ``prefix=a+b`` for "a b"), so a plus must be ``%2B``.

Signatures understood (``Authorization`` header or query parameters):
  V1 header   ``Authorization: OSS <AK>:<base64 HMAC-SHA1>``; Date = ``x-oss-date`` or ``Date``.
  V1 URL      ``OSSAccessKeyId``, ``Expires``, ``Signature`` [, ``security-token``].
  V4 header   ``Authorization: OSS4-HMAC-SHA256 Credential=<AK>/<yyyymmdd>/<region>/oss/aliyun_v4_request,
              Signature=<hex>[, AdditionalHeaders=h1;h2]`` with ``x-oss-date`` and ``x-oss-content-sha256``.
  V4 URL      ``x-oss-signature-version=OSS4-HMAC-SHA256``, ``x-oss-credential``, ``x-oss-date``,
              ``x-oss-expires``, ``x-oss-signature`` [, ``x-oss-additional-headers``, ``x-oss-security-token``].
V2 (``OSS2 ...``) is refused (403 AccessDenied, not supported here). Region for V4: ``--region``
(default cn-hangzhou), product ``oss``.

Credentials: ``--ak/--sk`` a long-term pair (must NOT carry a security token) and ``--sts-ak/--sts-sk/
--sts-token`` an STS pair (the request MUST carry the token: header ``x-oss-security-token`` in header
modes, URL parameter ``security-token`` (V1) / ``x-oss-security-token`` (V4) in URL modes).

Checks and answers (errors are OSS-style XML ``<Error><Code>..</Code><Message>..</Message>..</Error>``,
with ``StringToSign``/``CanonicalRequest`` as this server computed them, to debug a client):
  no signature at all                         403 AccessDenied
  unknown access key id                       403 InvalidAccessKeyId
  token missing/wrong for the STS pair, or
  a token sent with the long-term pair        403 InvalidSecurityToken
  signature mismatch                          403 SignatureDoesNotMatch
  V1/V4 URL past its expiry                   403 AccessDenied "Request has expired."
  header-mode Date / x-oss-date off by more than --max-skew seconds (default 900; 0 = no check)
                                              403 RequestTimeTooSkewed
  malformed V4 credential / scope (wrong region, product, date, terminator), missing x-oss-date
                                              403 SignatureDoesNotMatch / AccessDenied with a message
  x-oss-content-sha256 other than UNSIGNED-PAYLOAD that is not the hex SHA-256 of the body
                                              403 SignatureDoesNotMatch
  Content-MD5 not matching the body           400 InvalidDigest
Operations after successful authentication (state in memory, lost on exit):
  PUT /b/k    store body (+ Content-Type, x-oss-meta-*), 200 with ETag (quoted upper-case MD5) and
              x-oss-hash-crc64ecma;  GET /b/k 200 (single ``Range: bytes=a-b`` -> 206; response-content-*
              overrides honoured);  HEAD /b/k;  DELETE /b/k 204;  GET /b/ lists keys (ListBucketResult,
              ``prefix`` and ``max-keys``);  GET / lists buckets;  PUT /b/ creates a bucket;  GET ?acl
              answers a fixed private ACL;  HEAD ?objectMeta like HEAD;  anything else 501 NotImplemented.
              Missing bucket 404 NoSuchBucket, missing key 404 NoSuchKey. --bucket buckets exist at start.
Every response carries ``x-oss-request-id``; one log line per request goes to stderr.

Usage: .venv/bin/python scripts/oss_verify_server.py --port PORT --ak AK --sk SK
           [--sts-ak AK --sts-sk SK --sts-token TOKEN] [--region cn-hangzhou] [--bucket NAME ...]
           [--max-skew 900]
"""

import argparse
import base64
import calendar
import datetime
import email.utils
import hashlib
import hmac
import logging
import sys
import threading
import time
import types
import uuid
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote_to_bytes, urlsplit
from xml.sax.saxutils import escape

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

import oss2  # noqa: E402
import oss2.auth  # noqa: E402
import oss2.utils  # noqa: E402
from oss2.credentials import StaticCredentialsProvider  # noqa: E402
from requests.structures import CaseInsensitiveDict  # noqa: E402

import peer_server  # noqa: E402

V4_ALGORITHM = "OSS4-HMAC-SHA256"
V1_URL_AUTH_PARAMS = ("OSSAccessKeyId", "Expires", "Signature")
# signed like any subresource, but harmless to ignore when answering
IGNORED_SUBRESOURCES = frozenset(["security-token", "x-oss-process", "x-oss-traffic-limit", "x-oss-request-payer",
                                  "versionId"])


class OssError(Exception):
    def __init__(self, status, code, message, **extra):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


def _now():
    return time.time()


# ----------------------------------------------------------------------------------------------
# request parsing
# ----------------------------------------------------------------------------------------------
def parse_target(target):
    """-> (bucket, key, params dict, raw query). Path-style; '+' is literal in the path but a space in
    the query (form decoding, as oss2 itself sends parameters through requests' urlencode)."""
    parts = urlsplit(target)
    path = parts.path or "/"
    if not path.startswith("/"):
        raise OssError(400, "InvalidURI", "Path must start with '/'.")
    try:
        bucket_raw, _, key_raw = path[1:].partition("/")
        bucket = unquote_to_bytes(bucket_raw).decode("utf-8")
        key = unquote_to_bytes(key_raw).decode("utf-8")
        params = {}
        if parts.query:
            for piece in parts.query.split("&"):
                if piece == "":
                    continue
                k, _, v = piece.partition("=")
                params[unquote_to_bytes(k.replace("+", " ")).decode("utf-8")] = \
                    unquote_to_bytes(v.replace("+", " ")).decode("utf-8")
    except UnicodeDecodeError:
        raise OssError(400, "InvalidURI", "The path or query is not valid percent-encoded UTF-8.")
    return bucket, key, params, parts.query


def make_req(method, headers, params, region):
    """What oss2's signing code reads from an oss2.http.Request."""
    return types.SimpleNamespace(method=method, headers=headers, params=params, region=region,
                                 product="oss", cloudbox_id=None)


def parse_v4_authorization(value):
    rest = value[len(V4_ALGORITHM):].strip()
    fields = {}
    for part in rest.split(","):
        part = part.strip()
        if not part:
            continue
        name, eq, val = part.partition("=")
        if not eq:
            raise OssError(400, "InvalidArgument", "Malformed OSS4-HMAC-SHA256 Authorization header.")
        fields[name.strip()] = val.strip()
    if "Credential" not in fields or "Signature" not in fields:
        raise OssError(400, "InvalidArgument",
                       "OSS4-HMAC-SHA256 Authorization header needs Credential= and Signature=.")
    return fields


def _hexbytes(b):
    return " ".join("%02x" % c for c in b)


# ----------------------------------------------------------------------------------------------
# verification with oss2
# ----------------------------------------------------------------------------------------------
class Verifier:
    def __init__(self, pairs, region, max_skew):
        # access key id -> (secret, required token or None)
        self.pairs = pairs
        self.region = region
        self.max_skew = max_skew

    def _lookup(self, ak, token):
        if ak not in self.pairs:
            raise OssError(403, "InvalidAccessKeyId",
                           "The OSS Access Key Id you provided does not exist in our records.",
                           OSSAccessKeyId=ak)
        secret, required = self.pairs[ak]
        if required is None and token is not None:
            raise OssError(403, "InvalidSecurityToken",
                           "A security token was sent with a long-term access key id.", OSSAccessKeyId=ak)
        if required is not None and token != required:
            raise OssError(403, "InvalidSecurityToken",
                           "The security token is missing or does not match." if token is None
                           else "The security token you provided is invalid.", OSSAccessKeyId=ak)
        return StaticCredentialsProvider(ak, secret, required).get_credentials()

    def _skew(self, when_epoch):
        if self.max_skew and abs(_now() - when_epoch) > self.max_skew:
            raise OssError(403, "RequestTimeTooSkewed",
                           "The difference between the request time and the current time is too large.",
                           ServerTime=email.utils.formatdate(_now(), usegmt=True))

    def verify(self, method, bucket, key, headers, params, body):
        """Raise OssError unless the request is correctly signed. Returns a short description."""
        authz = headers.get("authorization")
        if authz is not None:
            if authz.startswith("OSS4-HMAC-SHA256"):
                return self._v4_header(method, bucket, key, headers, params, body, authz)
            if authz.startswith("OSS2 "):
                raise OssError(403, "AccessDenied", "Signature version 2 is not supported by this test server.")
            if authz.startswith("OSS "):
                return self._v1_header(method, bucket, key, headers, params, authz)
            raise OssError(400, "InvalidArgument", "Authorization header is invalid.")
        if params.get("x-oss-signature-version") is not None:
            if params["x-oss-signature-version"] != V4_ALGORITHM:
                raise OssError(400, "InvalidArgument", "Unsupported x-oss-signature-version.")
            return self._v4_url(method, bucket, key, headers, params)
        if any(p in params for p in V1_URL_AUTH_PARAMS):
            return self._v1_url(method, bucket, key, headers, params)
        raise OssError(403, "AccessDenied", "AccessDenied: anonymous access is not allowed on this server.")

    # ---- V1 ----
    def _v1_check(self, req, bucket, key, creds, provided, ak):
        auth = oss2.auth.ProviderAuth(StaticCredentialsProvider(creds.access_key_id, creds.access_key_secret,
                                                                creds.security_token))
        expected = auth._ProviderAuth__make_signature(req, bucket, key, creds)
        if not hmac.compare_digest(expected.encode(), provided.encode()):
            sts = auth._ProviderAuth__get_bytes_to_sign(req, bucket, key)
            raise OssError(403, "SignatureDoesNotMatch",
                           "The request signature we calculated does not match the signature you provided.",
                           OSSAccessKeyId=ak, SignatureProvided=provided,
                           StringToSign=sts.decode("utf-8", "replace"), StringToSignBytes=_hexbytes(sts))

    def _v1_header(self, method, bucket, key, headers, params, authz):
        cred, _, provided = authz[4:].strip().rpartition(":")
        if not cred:
            raise OssError(400, "InvalidArgument", "Authorization header is invalid (OSS AK:Signature).")
        creds = self._lookup(cred, headers.get("x-oss-security-token"))
        date = headers.get("x-oss-date") or headers.get("date")
        if not date:
            raise OssError(403, "AccessDenied", "AccessDenied: OSS authentication requires a valid Date.")
        parsed = email.utils.parsedate_tz(date)
        if parsed is None:
            raise OssError(403, "AccessDenied", "AccessDenied: OSS authentication requires a valid Date.")
        self._skew(email.utils.mktime_tz(parsed))
        self._v1_check(make_req(method, headers, params, self.region), bucket, key, creds, provided, cred)
        return "v1-header" + ("+token" if creds.security_token else "")

    def _v1_url(self, method, bucket, key, headers, params):
        missing = [p for p in V1_URL_AUTH_PARAMS if p not in params]
        if missing:
            raise OssError(403, "AccessDenied", "AccessDenied: missing URL parameter " + missing[0] + ".")
        ak = params["OSSAccessKeyId"]
        creds = self._lookup(ak, params.get("security-token"))
        try:
            expires = int(params["Expires"])
        except ValueError:
            raise OssError(403, "AccessDenied", "AccessDenied: Expires is not an integer.")
        if _now() > expires:
            raise OssError(403, "AccessDenied", "Request has expired.", Expires=params["Expires"],
                           ServerTime=email.utils.formatdate(_now(), usegmt=True))
        sign_params = {k: v for k, v in params.items() if k not in V1_URL_AUTH_PARAMS}
        sign_headers = CaseInsensitiveDict(headers)
        sign_headers["date"] = params["Expires"]  # oss2 puts Expires in the Date slot (x-oss-date wins)
        self._v1_check(make_req(method, sign_headers, sign_params, self.region), bucket, key, creds,
                       params["Signature"], ak)
        return "v1-url" + ("+token" if creds.security_token else "")

    # ---- V4 ----
    def _v4_scope(self, credential, date_time):
        ak, slash, scope = credential.partition("/")
        parts = scope.split("/")
        if not slash or len(parts) != 4:
            raise OssError(403, "SignatureDoesNotMatch",
                           "Invalid credential: expected <AK>/<yyyymmdd>/<region>/oss/aliyun_v4_request.")
        day, region, product, terminator = parts
        if region != self.region:
            raise OssError(403, "SignatureDoesNotMatch",
                           "Invalid credential scope: region %r, this server is %r." % (region, self.region))
        if product != "oss" or terminator != "aliyun_v4_request":
            raise OssError(403, "SignatureDoesNotMatch",
                           "Invalid credential scope: expected .../oss/aliyun_v4_request.")
        if day != date_time[:8]:
            raise OssError(403, "SignatureDoesNotMatch",
                           "Invalid credential scope: date %r does not match x-oss-date %r." % (day, date_time))
        return ak

    @staticmethod
    def _v4_time(date_time):
        try:
            return calendar.timegm(datetime.datetime.strptime(date_time, "%Y%m%dT%H%M%SZ").timetuple())
        except (TypeError, ValueError):
            raise OssError(403, "AccessDenied", "AccessDenied: x-oss-date must be yyyymmddTHHMMSSZ.")

    def _v4_check(self, req, bucket, key, additional, creds, date_time, provided, ak):
        auth = oss2.auth.ProviderAuthV4(StaticCredentialsProvider(creds.access_key_id, creds.access_key_secret,
                                                                  creds.security_token))
        expected = auth._ProviderAuthV4__make_signature(req, bucket, key, additional, creds, date_time)
        if not hmac.compare_digest(expected.encode(), provided.lower().encode()):
            cr = auth._ProviderAuthV4__get_canonical_request_bytes(req, bucket, key, additional)
            sts = auth._ProviderAuthV4__get_string_to_sign_bytes(req, cr, date_time)
            raise OssError(403, "SignatureDoesNotMatch",
                           "The request signature we calculated does not match the signature you provided.",
                           OSSAccessKeyId=ak, SignatureProvided=provided, StringToSign=sts,
                           CanonicalRequest=cr.decode("utf-8", "replace"), CanonicalRequestBytes=_hexbytes(cr))

    def _v4_header(self, method, bucket, key, headers, params, body, authz):
        fields = parse_v4_authorization(authz)
        date_time = headers.get("x-oss-date")
        if not date_time:
            raise OssError(403, "AccessDenied", "AccessDenied: V4 header signing requires x-oss-date.")
        when = self._v4_time(date_time)
        ak = self._v4_scope(fields["Credential"], date_time)
        creds = self._lookup(ak, headers.get("x-oss-security-token"))
        payload = headers.get("x-oss-content-sha256")
        if payload is None:
            raise OssError(403, "AccessDenied", "AccessDenied: V4 header signing requires x-oss-content-sha256.")
        if payload != "UNSIGNED-PAYLOAD" and payload.lower() != hashlib.sha256(body).hexdigest():
            raise OssError(403, "SignatureDoesNotMatch",
                           "x-oss-content-sha256 is neither UNSIGNED-PAYLOAD nor the SHA-256 of the body.")
        self._skew(when)
        extra = fields.get("AdditionalHeaders")
        additional = [h.strip().lower() for h in extra.split(";") if h.strip()] if extra else None
        self._v4_check(make_req(method, headers, params, self.region), bucket, key, additional, creds,
                       date_time, fields["Signature"], ak)
        return "v4-header" + ("+token" if creds.security_token else "") + ("+addl" if additional else "")

    def _v4_url(self, method, bucket, key, headers, params):
        for p in ("x-oss-credential", "x-oss-date", "x-oss-expires", "x-oss-signature"):
            if p not in params:
                raise OssError(403, "AccessDenied", "AccessDenied: missing URL parameter " + p + ".")
        date_time = params["x-oss-date"]
        when = self._v4_time(date_time)
        try:
            expires = int(params["x-oss-expires"])
        except ValueError:
            raise OssError(403, "AccessDenied", "AccessDenied: x-oss-expires is not an integer.")
        if expires < 1 or expires > 604800:
            raise OssError(400, "InvalidArgument", "x-oss-expires must be between 1 and 604800.")
        ak = self._v4_scope(params["x-oss-credential"], date_time)
        creds = self._lookup(ak, params.get("x-oss-security-token"))
        if _now() > when + expires:
            raise OssError(403, "AccessDenied", "Request has expired.",
                           ServerTime=email.utils.formatdate(_now(), usegmt=True))
        extra = params.get("x-oss-additional-headers")
        additional = [h.strip().lower() for h in extra.split(";") if h.strip()] if extra else None
        sign_params = {k: v for k, v in params.items() if k != "x-oss-signature"}
        self._v4_check(make_req(method, headers, sign_params, self.region), bucket, key, additional, creds,
                       date_time, params["x-oss-signature"], ak)
        return "v4-url" + ("+token" if creds.security_token else "") + ("+addl" if additional else "")


# ----------------------------------------------------------------------------------------------
# storage
# ----------------------------------------------------------------------------------------------
class Store:
    def __init__(self, buckets):
        self.lock = threading.Lock()
        self.buckets = {b: {} for b in buckets}
        self.created = {b: time.time() for b in buckets}


def crc64(data):
    c = oss2.utils.Crc64(0)
    c.update(data)
    return c.crc


def iso_ms(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


# ----------------------------------------------------------------------------------------------
# HTTP
# ----------------------------------------------------------------------------------------------
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "AuthCoreOSSVerify/1"
    sys_version = ""

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % args))
        sys.stderr.flush()

    def log_request(self, code="-", size="-"):
        self.status = code  # logged once per request by _handle

    # all verbs share one path
    def do_GET(self):
        self._handle()

    do_PUT = do_POST = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def _read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status, body=b"", headers=None):
        self.send_response(status)
        hdrs = {"x-oss-request-id": self.request_id, "Server": "AliyunOSS",
                "Date": email.utils.formatdate(usegmt=True)}
        hdrs.update(headers or {})
        if "Content-Length" not in hdrs:
            hdrs["Content-Length"] = str(len(body))
        for k, v in hdrs.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def _error(self, err):
        fields = [("Code", err.code), ("Message", err.message), ("RequestId", self.request_id),
                  ("HostId", self.headers.get("Host") or "127.0.0.1")]
        fields += [(k, str(v)) for k, v in err.extra.items()]
        xml = '<?xml version="1.0" encoding="UTF-8"?>\n<Error>\n' + "".join(
            "  <%s>%s</%s>\n" % (k, escape(v), k) for k, v in fields) + "</Error>\n"
        self._send(err.status, xml.encode("utf-8"),
                   {"Content-Type": "application/xml", "x-oss-ec": err.code, "x-authcore-error": err.code})

    def _handle(self):
        self.request_id = uuid.uuid4().hex[:24].upper()
        self.status = "-"
        note = "-"
        try:
            body = self._read_body()
            bucket, key, params, _ = parse_target(self.path)
            headers = CaseInsensitiveDict()
            for k, v in self.headers.items():
                headers[k] = headers[k] + "," + v if k in headers else v
            note = self.server.verifier.verify(self.command, bucket, key, headers, params, body)
            md5 = headers.get("content-md5")
            if md5 is not None and md5 != base64.b64encode(hashlib.md5(body).digest()).decode():
                raise OssError(400, "InvalidDigest", "The Content-MD5 you specified was invalid.")
            self._operate(bucket, key, headers, params, body)
        except OssError as e:
            note += " -> " + e.code
            self._error(e)
        except Exception as e:  # a bug here must not look like a signature verdict
            note += " -> InternalError %r" % (e,)
            self._error(OssError(500, "InternalError", "oss_verify_server: %r" % (e,)))
        finally:
            self.log_message("%s %s -> %s [%s]", self.command, self.path, self.status, note)

    def _operate(self, bucket, key, headers, params, body):
        store = self.server.store
        m = self.command
        if "objectMeta" in params and m == "HEAD":  # GetObjectMeta (oss2 object_exists/get_object_meta)
            params = {k: v for k, v in params.items() if k != "objectMeta"}
        if m == "GET" and "acl" in params:
            xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<AccessControlPolicy><Owner><ID>0</ID>'
                   '<DisplayName>0</DisplayName></Owner><AccessControlList><Grant>private</Grant>'
                   '</AccessControlList></AccessControlPolicy>\n')
            return self._send(200, xml.encode(), {"Content-Type": "application/xml"})
        subresources = [p for p in params if p in oss2.auth.ProviderAuth._subresource_key_set
                        and p not in IGNORED_SUBRESOURCES and not p.startswith("response-")]
        if subresources:
            raise OssError(501, "NotImplemented", "Subresource %r is not implemented here." % subresources[0])
        with store.lock:
            if not bucket:
                if m not in ("GET", "HEAD"):
                    raise OssError(501, "NotImplemented", "Only GET on the service.")
                region = self.server.verifier.region
                host = escape(self.headers.get("Host") or "127.0.0.1")
                items = "".join("<Bucket><Name>%s</Name><CreationDate>%s</CreationDate><Location>oss-%s</Location>"
                                "<ExtranetEndpoint>%s</ExtranetEndpoint><IntranetEndpoint>%s</IntranetEndpoint>"
                                "<Region>%s</Region><StorageClass>Standard</StorageClass></Bucket>"
                                % (escape(b), iso_ms(store.created[b]), region, host, host, region)
                                for b in sorted(store.buckets))
                xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<ListAllMyBucketsResult><Owner><ID>0</ID>'
                       '<DisplayName>0</DisplayName></Owner><Buckets>%s</Buckets></ListAllMyBucketsResult>\n'
                       % items)
                return self._send(200, xml.encode(), {"Content-Type": "application/xml"})
            if not key and m == "PUT":
                store.buckets.setdefault(bucket, {})
                store.created.setdefault(bucket, time.time())
                return self._send(200)
            objects = store.buckets.get(bucket)
            if objects is None:
                raise OssError(404, "NoSuchBucket", "The specified bucket does not exist.", BucketName=bucket)
            if not key:
                if m not in ("GET", "HEAD"):
                    raise OssError(501, "NotImplemented", "Only GET/PUT on a bucket.")
                prefix = params.get("prefix", "")
                max_keys = int(params.get("max-keys") or 1000)
                keys = sorted(k for k in objects if k.startswith(prefix))
                shown = keys[:max_keys]
                items = "".join("<Contents><Key>%s</Key><LastModified>%s</LastModified><ETag>\"%s\"</ETag>"
                                "<Type>Normal</Type><Size>%d</Size><StorageClass>Standard</StorageClass>"
                                "</Contents>" % (escape(k), iso_ms(objects[k]["mtime"]), objects[k]["etag"],
                                                 len(objects[k]["data"])) for k in shown)
                xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>%s</Name>'
                       '<Prefix>%s</Prefix><Marker></Marker><MaxKeys>%d</MaxKeys><Delimiter></Delimiter>'
                       '<IsTruncated>%s</IsTruncated>%s</ListBucketResult>\n'
                       % (escape(bucket), escape(prefix), max_keys,
                          "true" if len(keys) > len(shown) else "false", items))
                return self._send(200, xml.encode(), {"Content-Type": "application/xml"})
            if m == "PUT":
                obj = {"data": body, "etag": hashlib.md5(body).hexdigest().upper(), "mtime": time.time(),
                       "type": headers.get("content-type") or "application/octet-stream",
                       "meta": {k.lower(): v for k, v in headers.items() if k.lower().startswith("x-oss-meta-")}}
                objects[key] = obj
                return self._send(200, b"", {"ETag": '"%s"' % obj["etag"],
                                             "x-oss-hash-crc64ecma": str(crc64(body))})
            if m == "DELETE":
                objects.pop(key, None)
                return self._send(204)
            if m in ("GET", "HEAD"):
                obj = objects.get(key)
                if obj is None:
                    raise OssError(404, "NoSuchKey", "The specified key does not exist.", Key=key)
                data = obj["data"]
                out = {"Content-Type": obj["type"], "ETag": '"%s"' % obj["etag"],
                       "Last-Modified": email.utils.formatdate(obj["mtime"], usegmt=True),
                       "x-oss-object-type": "Normal", "x-oss-storage-class": "Standard",
                       "Accept-Ranges": "bytes", "x-oss-hash-crc64ecma": str(crc64(data))}
                out.update(obj["meta"])
                for p, h in (("response-content-type", "Content-Type"),
                             ("response-content-disposition", "Content-Disposition"),
                             ("response-content-encoding", "Content-Encoding"),
                             ("response-content-language", "Content-Language"),
                             ("response-cache-control", "Cache-Control"), ("response-expires", "Expires")):
                    if p in params:
                        out[h] = params[p]
                status = 200
                rng = headers.get("range")
                if rng and rng.startswith("bytes=") and "," not in rng and data:
                    a, _, b = rng[6:].partition("-")
                    try:
                        if a == "":
                            start, end = max(0, len(data) - int(b)), len(data) - 1
                        else:
                            start, end = int(a), min(int(b) if b else len(data) - 1, len(data) - 1)
                        if start <= end:
                            status = 206
                            out["Content-Range"] = "bytes %d-%d/%d" % (start, end, len(data))
                            out.pop("x-oss-hash-crc64ecma")
                            data = data[start:end + 1]
                    except ValueError:
                        pass
                if m == "HEAD":
                    out["Content-Length"] = str(len(data))
                    return self._send(status, b"", out)
                return self._send(status, data, out)
            raise OssError(501, "NotImplemented", "%s on an object is not implemented here." % m)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ak", required=True)
    ap.add_argument("--sk", required=True)
    ap.add_argument("--sts-ak")
    ap.add_argument("--sts-sk")
    ap.add_argument("--sts-token")
    ap.add_argument("--region", default="cn-hangzhou")
    ap.add_argument("--bucket", action="append", default=None)
    ap.add_argument("--max-skew", type=int, default=900)
    a = ap.parse_args(argv)
    if oss2.__version__ != "2.19.1":
        sys.stderr.write("oss_verify_server: expected oss2 2.19.1, found %s\n" % oss2.__version__)
        return 2
    pairs = {a.ak: (a.sk, None)}
    if a.sts_ak:
        if not (a.sts_sk and a.sts_token):
            ap.error("--sts-ak needs --sts-sk and --sts-token")
        pairs[a.sts_ak] = (a.sts_sk, a.sts_token)
    server = ThreadingHTTPServer((a.host, a.port), Handler)
    server.daemon_threads = True
    server.verifier = Verifier(pairs, a.region, a.max_skew)
    server.store = Store(a.bucket or ["authcore-test"])
    return peer_server.serve(server, "oss_verify_server: listening on http://%s:%d region %s buckets %s"
                             % (a.host, server.server_address[1], a.region, ",".join(server.store.buckets)))


if __name__ == "__main__":
    peer_server.run(main)
