#!/usr/bin/env python3
"""A local "token-vending endpoint" (app server handing out OSS STS credentials), for integration tests.

Stdlib only. Listens on 127.0.0.1:PORT (threaded, so /sts/slow does not block other calls). GET (HEAD is
answered like GET without a body), and POST for /sts/session only; other verbs 405. JSON bodies,
Content-Type application/json.
Times are ISO 8601 UTC with a ``Z``.

  GET /sts                 200 {"StatusCode":200,"AccessKeyId":AK,"AccessKeySecret":SK,"SecurityToken":TOKEN,
                               "Expiration":"<now+3600s, whole seconds>Z"}  -- AK/SK/TOKEN are the --ak/--sk/
                               --token given at start (with_peers.py passes the STS pair that
                               oss_verify_server.py accepts, so these credentials really sign requests)
  GET /sts/fractional      same, Expiration with milliseconds: "<now+3600s>.123Z"
  GET /sts/short           same, Expiration now+90s
  GET /sts/expired         same, Expiration now-60s (already expired)
  GET /sts/non200          HTTP 500 {"StatusCode":500,"ErrorCode":"InternalError","ErrorMessage":"..."}
  GET /sts/status-mismatch HTTP 200 but "StatusCode":403 (plus ErrorCode/ErrorMessage, and the credential
                               fields, so only StatusCode says it failed)
  GET /sts/missing-secret  HTTP 200, StatusCode 200, no "AccessKeySecret"
  GET /sts/bad-json        HTTP 200, body "{not json"
  GET /sts/wrong-type      HTTP 200, "AccessKeyId" is a number (12345)
  GET /sts/counter         like /sts, but AccessKeyId is "STS.counter-N", N = 1, 2, 3, ... per call
                           (secret "counter-secret-N", token "counter-token-N")
  GET /sts/counter/count   200 {"count":N}: how many times /sts/counter was hit (this path is not counted)
  GET /sts/counter/reset   200 {"count":0}: set the counter back to 0
  GET /sts/slow            sleeps 2 s, then answers like /sts
  POST /sts/session?purpose=oss  like /sts, but only with header X-App-Session: app-session-token-1, query
                           purpose=oss and a JSON body {"user": NAME} (a request the app builds itself);
                           otherwise 401 {"StatusCode":401,"ErrorCode":"Unauthorized",...}
  anything else            404 {"StatusCode":404,"ErrorCode":"NotFound",...}
A query string is ignored. One log line per request on stderr.

Usage: .venv/bin/python scripts/token_vending_server.py --port PORT --ak STS.xxx --sk SECRET --token TOKEN
"""

import argparse
import datetime
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import peer_server


def iso(delta_seconds, fraction=None):
    t = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(
        seconds=delta_seconds)
    s = t.strftime("%Y-%m-%dT%H:%M:%S")
    return s + ("." + fraction if fraction else "") + "Z"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "AuthCoreTokenVending/1"
    sys_version = ""

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % args))
        sys.stderr.flush()

    def _send(self, status, body):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _creds(self, expiration, **override):
        cfg = self.server.cfg
        out = {"StatusCode": 200, "AccessKeyId": cfg.ak, "AccessKeySecret": cfg.sk,
               "SecurityToken": cfg.token, "Expiration": expiration}
        out.update(override)
        return out

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = urlsplit(self.path).path.rstrip("/") or "/"
        srv = self.server
        if path == "/sts":
            return self._send(200, self._creds(iso(3600)))
        if path == "/sts/fractional":
            return self._send(200, self._creds(iso(3600, "123")))
        if path == "/sts/short":
            return self._send(200, self._creds(iso(90)))
        if path == "/sts/expired":
            return self._send(200, self._creds(iso(-60)))
        if path == "/sts/non200":
            return self._send(500, {"StatusCode": 500, "ErrorCode": "InternalError",
                                    "ErrorMessage": "The token vending service failed (test)."})
        if path == "/sts/status-mismatch":
            return self._send(200, self._creds(iso(3600), StatusCode=403, ErrorCode="AccessDenied",
                                               ErrorMessage="Not allowed (test: HTTP 200 with StatusCode 403)."))
        if path == "/sts/missing-secret":
            body = self._creds(iso(3600))
            del body["AccessKeySecret"]
            return self._send(200, body)
        if path == "/sts/bad-json":
            return self._send(200, b"{not json")
        if path == "/sts/wrong-type":
            return self._send(200, self._creds(iso(3600), AccessKeyId=12345))
        if path == "/sts/counter":
            with srv.lock:
                srv.counter += 1
                n = srv.counter
            return self._send(200, self._creds(iso(3600), AccessKeyId="STS.counter-%d" % n,
                                               AccessKeySecret="counter-secret-%d" % n,
                                               SecurityToken="counter-token-%d" % n))
        if path == "/sts/counter/count":
            with srv.lock:
                return self._send(200, {"count": srv.counter})
        if path == "/sts/counter/reset":
            with srv.lock:
                srv.counter = 0
            return self._send(200, {"count": 0})
        if path == "/sts/slow":
            time.sleep(2.0)
            return self._send(200, self._creds(iso(3600)))
        return self._send(404, {"StatusCode": 404, "ErrorCode": "NotFound", "ErrorMessage": "No such path: " + path})

    def do_POST(self):
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if 0 < length <= 65536 else b""
        if split.path != "/sts/session":
            return self._send(405, {"StatusCode": 405, "ErrorCode": "MethodNotAllowed", "ErrorMessage": "POST only for /sts/session."})
        try:
            user = json.loads(body).get("user")
        except (ValueError, AttributeError):
            user = None
        if (self.headers.get("X-App-Session") != "app-session-token-1" or split.query != "purpose=oss"
                or not isinstance(user, str) or not user):
            return self._send(401, {"StatusCode": 401, "ErrorCode": "Unauthorized",
                                    "ErrorMessage": "needs the app session, purpose=oss and a user"})
        return self._send(200, self._creds(iso(3600)))

    def _not_allowed(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self._send(405, {"StatusCode": 405, "ErrorCode": "MethodNotAllowed", "ErrorMessage": "GET only."})

    do_PUT = do_DELETE = do_PATCH = _not_allowed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ak", default="STS.NUgYrLnoC37mZZCNnAbezVending")
    ap.add_argument("--sk", default="VendingSecretForAuthCoreTests0000000001")
    ap.add_argument("--token", default="CAIS+VendingToken/ForAuthCoreTests==")
    cfg = ap.parse_args(argv)
    server = ThreadingHTTPServer((cfg.host, cfg.port), Handler)
    server.daemon_threads = True
    server.cfg = cfg
    server.lock = threading.Lock()
    server.counter = 0
    return peer_server.serve(server, "token_vending_server: listening on http://%s:%d" % (cfg.host, server.server_address[1]))


if __name__ == "__main__":
    peer_server.run(main)
