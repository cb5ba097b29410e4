#!/usr/bin/env python3
"""A loopback Alibaba Cloud STS stand-in (AssumeRole) whose checking is done by the Alibaba SDKs.

Every request's signature is recomputed by an oracle, never by AuthCore's code:
  RPC signature 1.0 (parameters in the query or a form body, with Signature):
      aliyun-python-sdk-core 2.16.1 rpc_signature_composer __compose_string_to_sign / __get_signature
  ACS3-HMAC-SHA256 (an Authorization header, x-acs-action/x-acs-version, parameters in the query or a
  form body): alibabacloud-openapi-util 0.2.4 Client.get_authorization over the headers the request
  lists in SignedHeaders, with the body's SHA-256 checked against x-acs-content-sha256.
Then, like STS:
  - an unknown AccessKeyId -> 404 InvalidAccessKeyId.NotFound; a signature that differs -> 400
    SignatureDoesNotMatch; SignatureMethod other than HMAC-SHA1 / SignatureVersion other than 1.0 (RPC)
    -> 400 InvalidParameter; Version other than 2015-04-01 -> 400 InvalidVersion;
  - a SignatureNonce / x-acs-signature-nonce seen before -> 400 SignatureNonceUsed;
  - a Timestamp / x-acs-date more than 15 minutes from the server's clock -> 400 InvalidTimeStamp.Expired;
  - Action other than AssumeRole -> 400 InvalidAction.NotFound; RoleArn other than --role-arn -> 404
    EntityNotExist.Role; DurationSeconds outside 900..--max-duration -> 400 InvalidParameter.DurationSeconds;
    RoleSessionName not 2-64 of [A-Za-z0-9.@_-] -> 400 InvalidParameter.RoleSessionName.
Errors use Alibaba's JSON shape {"RequestId","HostId","Code","Message","Recommend"}.

A good request gets 200 {"RequestId", "AssumedRoleUser": {"Arn", "AssumedRoleId"}, "Credentials":
{"AccessKeyId", "AccessKeySecret", "SecurityToken", "Expiration"}}: the --sts-ak/--sts-sk/--sts-token pair
(with_peers.py passes the STS pair that oss_verify_server.py accepts, so the credentials really sign
OSS requests), Expiration = now + DurationSeconds (whole seconds), except for a RoleSessionName
"short-N-…" (N from 2 to 120): now + N s (refresh tests: a cache refreshing at half the lifetime asks
again every ~N/2 s).

  GET /_calls    200 {"AssumeRole": N, "sessions": {name: count}, "policies": {name: Policy or null}}: accepted
                 AssumeRole calls, and the session policy each role session name was last given
  POST /_reset   200 {}: counters back to zero

Usage: .venv/bin/python scripts/aliyun_sts_server.py --port PORT --ak ID --sk SECRET --role-arn ARN
           --sts-ak STS.ID --sts-sk SECRET --sts-token TOKEN [--max-duration 3600]
"""

import argparse
import datetime
import hashlib
import json
import re
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import aliyunsdkcore.auth.composer.rpc_signature_composer as rpc
import alibabacloud_openapi_util.client as openapi_util
import peer_server

COMPOSE = getattr(rpc, "__compose_string_to_sign")
SIGN = getattr(rpc, "__get_signature")
SKEW = datetime.timedelta(minutes=15)
SESSION_NAME = re.compile(r"^[A-Za-z0-9.@_-]{2,64}$")
MAX_BODY = 1 << 16


class Refused(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def parse_time(text):
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    except (TypeError, ValueError):
        raise Refused(400, "InvalidTimeStamp.Format", "Specified time stamp or date value is not well formatted.")


class Request:  # what openapi_util.get_authorization reads
    def __init__(self, method, pathname, query, headers):
        self.method, self.pathname, self.query, self.headers = method, pathname, query, headers


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("aliyun_sts_server: " + (fmt % args) + "\n")

    def _send(self, status, doc):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise Refused(400, "InvalidParameter", "body too large")
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        if urlsplit(self.path).path == "/_calls":
            with self.server.lock:
                return self._send(200, {"AssumeRole": self.server.calls, "sessions": dict(self.server.sessions),
                                        "policies": dict(self.server.policies)})
        self._handle(b"")

    def do_POST(self):
        if urlsplit(self.path).path == "/_reset":
            self._body()
            with self.server.lock:
                self.server.calls, self.server.sessions, self.server.policies = 0, {}, {}
            return self._send(200, {})
        try:
            body = self._body()
        except Refused as e:
            return self._error(e)
        self._handle(body)

    def _error(self, e):
        self._send(e.status, {"RequestId": str(uuid.uuid4()).upper(), "HostId": "sts.aliyuncs.com", "Code": e.code,
                              "Message": e.message, "Recommend": "https://api.aliyun.com/troubleshoot"})

    def _handle(self, body):
        try:
            doc = self._assume_role(body)
        except Refused as e:
            return self._error(e)
        self._send(200, doc)

    def _fresh(self, nonce, time_text):
        now = datetime.datetime.now(datetime.timezone.utc)
        if abs(now - parse_time(time_text)) > SKEW:
            raise Refused(400, "InvalidTimeStamp.Expired", "Specified time stamp or date value is expired.")
        with self.server.lock:
            if not nonce or nonce in self.server.nonces:
                raise Refused(400, "SignatureNonceUsed", "Specified signature nonce was used already.")
            self.server.nonces.add(nonce)

    def _secret(self, access_key_id):
        if access_key_id != self.server.cfg.ak:
            raise Refused(404, "InvalidAccessKeyId.NotFound", "Specified access key is not found.")
        return self.server.cfg.sk

    def _assume_role(self, body):
        split = urlsplit(self.path)
        query = parse_qsl(split.query, keep_blank_values=True)
        form = []
        if body:
            if not (self.headers.get("Content-Type") or "").startswith("application/x-www-form-urlencoded"):
                raise Refused(400, "InvalidParameter", "body must be a form")
            form = parse_qsl(body.decode("utf-8", "strict"), keep_blank_values=True)
        names = [k for k, _ in query + form]
        if len(names) != len(set(names)):
            raise Refused(400, "InvalidParameter", "a parameter is repeated")
        auth = self.headers.get("Authorization") or ""
        if auth.startswith("ACS3-HMAC-SHA256 "):
            params = dict(form + query)
            self._check_acs3(split, dict(query), body, auth)
            action, version = self.headers.get("x-acs-action"), self.headers.get("x-acs-version")
        else:
            params = dict(query + form)
            self._check_rpc(params)
            action, version = params.get("Action"), params.get("Version")
        if version != "2015-04-01":
            raise Refused(400, "InvalidVersion", "Specified parameter Version is not valid.")
        if action != "AssumeRole":
            raise Refused(400, "InvalidAction.NotFound", "Specified api is not found, please check your url and method.")
        return self._grant(params)

    def _check_rpc(self, params):
        signature = params.pop("Signature", None)
        if params.get("SignatureMethod") != "HMAC-SHA1" or params.get("SignatureVersion") != "1.0":
            raise Refused(400, "InvalidParameter", "SignatureMethod must be HMAC-SHA1 and SignatureVersion 1.0.")
        secret = self._secret(params.get("AccessKeyId"))
        string_to_sign = COMPOSE(self.command, dict(params))
        if signature is None or signature != SIGN(string_to_sign, secret):
            raise Refused(400, "SignatureDoesNotMatch",
                          "Specified signature is not matched with our calculation. server string to sign is:" + string_to_sign)
        self._fresh(params.get("SignatureNonce"), params.get("Timestamp"))

    def _check_acs3(self, split, query, body, auth):
        m = re.match(r"^ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]{64})$", auth)
        if not m:
            raise Refused(400, "InvalidAuthorization", "Authorization is malformed.")
        access_key_id, signed, _ = m.groups()
        secret = self._secret(access_key_id)
        payload = self.headers.get("x-acs-content-sha256") or ""
        if payload != hashlib.sha256(body).hexdigest():
            raise Refused(400, "InvalidParameter", "x-acs-content-sha256 does not match the body.")
        names = signed.split(";")
        required = {"host", "x-acs-action", "x-acs-version", "x-acs-date", "x-acs-signature-nonce", "x-acs-content-sha256"}
        if not required <= set(names):
            raise Refused(400, "InvalidParameter", "SignedHeaders must include " + ";".join(sorted(required)))
        headers = {}
        for name in names:
            values = self.headers.get_all(name)
            if not values:
                raise Refused(400, "InvalidParameter", "signed header %s is missing" % name)
            headers[name] = ",".join(values)
        expected = openapi_util.Client.get_authorization(
            Request(self.command, split.path or "/", query, headers), "ACS3-HMAC-SHA256", payload, access_key_id, secret)
        if expected != auth:
            raise Refused(400, "SignatureDoesNotMatch", "Specified signature is not matched with our calculation.")
        self._fresh(self.headers.get("x-acs-signature-nonce"), self.headers.get("x-acs-date"))

    def _grant(self, params):
        cfg = self.server.cfg
        if params.get("RoleArn") != cfg.role_arn:
            raise Refused(404, "EntityNotExist.Role", "The role not exists: %s." % params.get("RoleArn"))
        name = params.get("RoleSessionName") or ""
        if not SESSION_NAME.match(name):
            raise Refused(400, "InvalidParameter.RoleSessionName", "The parameter RoleSessionName is wrongly formed.")
        try:
            duration = int(params.get("DurationSeconds", "3600"))
        except ValueError:
            duration = -1
        if not 900 <= duration <= cfg.max_duration:
            raise Refused(400, "InvalidParameter.DurationSeconds",
                          "The Min/Max value of DurationSeconds is 15min/%dhr." % (cfg.max_duration // 3600))
        if "Policy" in params:
            try:
                json.loads(params["Policy"])
            except ValueError:
                raise Refused(400, "InvalidParameter.PolicyGrammar", "The parameter Policy has not a valid grammar.")
        short = re.match(r"^short-([0-9]{1,3})-", name)
        lifetime = min(max(int(short.group(1)), 2), 120) if short else duration
        expiration = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(seconds=lifetime)
        with self.server.lock:
            self.server.calls += 1
            self.server.sessions[name] = self.server.sessions.get(name, 0) + 1
            self.server.policies[name] = params.get("Policy")
        return {
            "RequestId": str(uuid.uuid4()).upper(),
            "AssumedRoleUser": {"Arn": "%s/%s" % (cfg.role_arn, name), "AssumedRoleId": "3000000000000000:" + name},
            "Credentials": {"AccessKeyId": cfg.sts_ak, "AccessKeySecret": cfg.sts_sk, "SecurityToken": cfg.sts_token,
                            "Expiration": expiration.strftime("%Y-%m-%dT%H:%M:%SZ")},
        }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ak", required=True)
    ap.add_argument("--sk", required=True)
    ap.add_argument("--role-arn", required=True)
    ap.add_argument("--sts-ak", required=True)
    ap.add_argument("--sts-sk", required=True)
    ap.add_argument("--sts-token", required=True)
    ap.add_argument("--max-duration", type=int, default=3600)
    cfg = ap.parse_args(argv)
    server = ThreadingHTTPServer((cfg.host, cfg.port), Handler)
    server.daemon_threads = True
    server.cfg = cfg
    server.lock = threading.Lock()
    server.nonces = set()
    server.calls, server.sessions, server.policies = 0, {}, {}
    return peer_server.serve(server, "aliyun_sts_server: listening on http://%s:%d" % (cfg.host, server.server_address[1]))


if __name__ == "__main__":
    peer_server.run(main)
