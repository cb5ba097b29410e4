#!/usr/bin/env python3
"""A hostile HTTP service on loopback, for AuthCore's integration tests (stdlib only).

Usage: python3 scripts/hostile_server.py --port-a N --port-b M

Listens on two addresses at once (one ThreadingHTTPServer each, in daemon threads):
  A  127.0.0.1:N  where clients are pointed; the scenarios below and the control endpoints.
  B  127.0.0.2:M  the "other" address. It records every request (method, path, headers) and answers
                  200 {"caught":true}. A request reaching B means a client followed a redirect.
Prints one line "ready" on stdout once both addresses listen; one log line per request on stderr.
SIGTERM (or Ctrl-C) stops both servers, waking any sleeping scenario, and exits 0.

HTTP/1.1, explicit Content-Length unless said otherwise. GET, POST, PUT, DELETE and HEAD are handled
alike: a request body is read (by Content-Length) and discarded; HEAD gets the headers without a body.

Control endpoints on A (the method is not checked):
  /_health            200 {"ok":true} (readiness)
  /_hits              200 {"count":N,"requests":[{"method":..,"path":..,"headers":{..}}, ...]}: what B got
  /_reset             200 {"ok":true}: forgets B's record and the per-scenario counts
  /_count/<scenario>  200 {"count":N}: how many requests <scenario> got (every scenario is counted)

Scenarios on A, chosen by the first path segment only (http://127.0.0.1:N/<scenario>/...; any further
path, query, body or X-Amz-Target is ignored). B below stands for http://127.0.0.2:M:
  redirect-301/302/307/308   that status, Location B/stolen, empty body
  redirect-https-other       307, Location https://127.0.0.2:M/stolen
  redirect-same-origin       307, Location http://127.0.0.1:N/ok-json/ (same origin)
  s3-301                     301, x-amz-bucket-region: eu-west-1, Location B/stolen, S3 PermanentRedirect XML
  skew-year0                 403 RequestTimeTooSkewed XML, Date: Mon, 01 Jan 0000 00:00:00 GMT
  skew-year9999              403 RequestTimeTooSkewed XML, Date: Fri, 31 Dec 9999 23:59:59 GMT
  skew-unrecognised          403 AccessDenied XML (not a skew answer), Date = now + 3 days
  skew-30d                   403 RequestTimeTooSkewed XML, Date = now + 30 days
  skew-1h                    403 RequestTimeTooSkewed XML, Date = now + 1 hour (see /_count/skew-1h)
  json-expires-1e300         200 Cognito AuthenticationResult (application/x-amz-json-1.1), "ExpiresIn":1e300
  json-expires-negative      same, "ExpiresIn":-5
  vending-status-1e300       200 OSS vending JSON with "StatusCode":1e300
  vending-expiration-1e300   200 vending JSON, StatusCode 200, "Expiration":1e300
  vending-expiration-negative  same, "Expiration":-1
  vending-expiration-year0   same, "Expiration":"0000-01-01T00:00:00Z"
  vending-expiration-soon    same, "Expiration" = now + 3 s (YYYY-MM-DDTHH:MM:SSZ)
  identity-expiration-1e300  200 Cognito Identity GetCredentialsForIdentity JSON, "Expiration":1e300
  sts-expiration-absurd      200 text/xml STS AssumeRole answer, <Expiration>99999-01-01T00:00:00Z
  malformed-json             200 application/json, truncated body {"AuthenticationResult": {"AccessToken":
  malformed-xml              200 text/xml, truncated STS XML
  ok-json                    200 {"ok":true}
  big-body                   200, Content-Length 100663296 (96 MiB), streamed as 'a' in 64 KiB writes
  big-content-length         200, Content-Length 1073741824, sends 1 KiB, holds the connection up to 30 s,
                             then closes it
  endless-body               200, Transfer-Encoding: chunked, 64 KiB chunks of 'a' until the client leaves,
                             30 s or 256 MiB pass (4x the 64 MiB client cap); then closes without the final chunk
  slow                       waits 30 s (cut short when the server stops), then 200 {}
  anything else              404 {"error":"unknown scenario"}
Streaming scenarios stop quietly when the client disconnects.
"""

import argparse
import email.utils
import json
import select
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

CHUNK = b"a" * 65536
JSON = "application/json"
XML = "application/xml"
SKEWED = (b"<Error><Code>RequestTimeTooSkewed</Code><Message>The difference between the request time and the "
          b"current time is too large.</Message></Error>")
DENIED = b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
S3_301 = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you '
          b'are attempting to access must be addressed using the specified endpoint. Please send all future '
          b'requests to this endpoint.</Message><Bucket>b</Bucket><Endpoint>b.s3.eu-west-1.amazonaws.com'
          b'</Endpoint></Error>')
COGNITO = ('{"AuthenticationResult":{"AccessToken":"a","IdToken":"i","RefreshToken":"r","ExpiresIn":%s,'
           '"TokenType":"Bearer"},"ChallengeParameters":{}}')
VENDING = ('{"StatusCode":%s,"AccessKeyId":"STS.A","AccessKeySecret":"s","SecurityToken":"t",'
           '"Expiration":%s}')
STS_XML = (b"<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIA</AccessKeyId><SecretAccessKey>"
           b"s</SecretAccessKey><SessionToken>t</SessionToken><Expiration>99999-01-01T00:00:00Z</Expiration>"
           b"</Credentials></AssumeRoleResult></AssumeRoleResponse>")


def http_date(offset=0.0):
    return email.utils.formatdate(time.time() + offset, usegmt=True)


def iso_utc(offset=0.0):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + offset))


class State:
    def __init__(self, port_a, port_b):
        self.port_a, self.port_b = port_a, port_b
        self.lock = threading.Lock()
        self.hits = []     # requests B received
        self.counts = {}   # scenario -> requests A received for it
        self.stopping = threading.Event()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "AuthCoreHostile/1"
    sys_version = ""

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s %s\n" % (time.strftime("%H:%M:%S"), self.server.role, fmt % args))
        sys.stderr.flush()

    # -- plumbing ---------------------------------------------------------------------------------
    def _discard_body(self):
        if self.headers.get("Transfer-Encoding") and not self.headers.get("Content-Length"):
            self.close_connection = True  # a chunked request body is not read: do not reuse the connection
        left = int(self.headers.get("Content-Length") or 0)
        while left > 0:
            data = self.rfile.read(min(left, 65536))
            if not data:
                break
            left -= len(data)

    def _head(self, status, headers):
        """Status line and headers, no Server header, our own Date (unless the scenario sets one)."""
        self.send_response_only(status)
        if not any(k.lower() == "date" for k, _ in headers):
            self.send_header("Date", http_date())
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.log_message('"%s %s" %d', self.command, self.path, status)

    def _send(self, status, body=b"", ctype=JSON, headers=()):
        if isinstance(body, str):
            body = body.encode()
        elif not isinstance(body, bytes):
            body = json.dumps(body, separators=(",", ":")).encode()
        hdrs = list(headers) + [("Content-Length", str(len(body)))]
        if body:
            hdrs.insert(0, ("Content-Type", ctype))
        self._head(status, hdrs)
        if self.command != "HEAD":
            self.wfile.write(body)

    def _client_gone(self, timeout):
        """Waits up to `timeout` s for the client; True when it closed the connection (input is discarded)."""
        try:
            if select.select([self.connection], [], [], timeout)[0]:
                return self.connection.recv(65536) == b""
        except OSError:
            return True
        return False

    def _dispatch(self):
        try:
            self._route()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self.log_message('"%s %s": client went away', self.command, self.path)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _dispatch

    def _route(self):
        self._discard_body()
        path = urlsplit(self.path).path
        if self.server.role == "B":
            with self.server.state.lock:
                self.server.state.hits.append({"method": self.command, "path": self.path,
                                               "headers": self._headers_dict()})
            return self._send(200, {"caught": True})
        seg, _, rest = path.lstrip("/").partition("/")
        if seg.startswith("_"):
            return self._control(seg, rest)
        with self.server.state.lock:
            self.server.state.counts[seg] = self.server.state.counts.get(seg, 0) + 1
        fn = SCENARIOS.get(seg)
        if fn is None:
            return self._send(404, {"error": "unknown scenario"})
        fn(self)

    def _headers_dict(self):
        out = {}
        for k, v in self.headers.items():
            out[k] = out[k] + ", " + v if k in out else v
        return out

    def _control(self, seg, rest):
        st = self.server.state
        with st.lock:
            if seg == "_health":
                body = {"ok": True}
            elif seg == "_hits":
                body = {"count": len(st.hits), "requests": list(st.hits)}
            elif seg == "_reset":
                st.hits.clear()
                st.counts.clear()
                body = {"ok": True}
            elif seg == "_count":
                body = {"count": st.counts.get(rest.strip("/"), 0)}
            else:
                body = None
        if body is None:
            return self._send(404, {"error": "unknown control endpoint"})
        self._send(200, body)

    # -- scenarios --------------------------------------------------------------------------------
    @property
    def b_url(self):
        return "http://127.0.0.2:%d" % self.server.state.port_b

    def redirect(self, status, location):
        self._send(status, headers=[("Location", location)])

    def big_body(self):
        total = 96 * 1024 * 1024
        self._head(200, [("Content-Type", "application/octet-stream"), ("Content-Length", str(total))])
        if self.command == "HEAD":
            return
        for _ in range(total // len(CHUNK)):
            self.wfile.write(CHUNK)

    def big_content_length(self):
        self._head(200, [("Content-Type", "application/octet-stream"), ("Content-Length", str(1 << 30))])
        self.close_connection = True
        if self.command == "HEAD":
            return
        self.wfile.write(b"a" * 1024)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not self.server.state.stopping.is_set():
            if self._client_gone(0.25):
                break

    def endless_body(self):
        self._head(200, [("Content-Type", "application/octet-stream"), ("Transfer-Encoding", "chunked")])
        self.close_connection = True
        if self.command == "HEAD":
            return
        frame = b"%x\r\n" % len(CHUNK) + CHUNK + b"\r\n"
        deadline, sent = time.monotonic() + 30, 0
        while sent < (256 << 20) and time.monotonic() < deadline and not self.server.state.stopping.is_set():
            self.wfile.write(frame)
            sent += len(CHUNK)

    def endless_stream(self):
        """A body with neither Content-Length nor chunking: it runs until the server closes (never, here)."""
        self._head(200, [("Content-Type", "application/octet-stream")])
        self.close_connection = True
        if self.command == "HEAD":
            return
        deadline, sent = time.monotonic() + 30, 0
        while sent < (256 << 20) and time.monotonic() < deadline and not self.server.state.stopping.is_set():
            self.wfile.write(CHUNK)
            sent += len(CHUNK)

    def slow(self):
        self.server.state.stopping.wait(30)
        self._send(200, {})

    def skew(self, date, body=SKEWED):
        self._send(403, body, XML, headers=[("Date", date)])


def _vending(status="200", expiration='"2099-01-01T00:00:00Z"'):
    return lambda h: h._send(200, VENDING % (status, expiration))


SCENARIOS = {
    "redirect-301": lambda h: h.redirect(301, h.b_url + "/stolen"),
    "redirect-302": lambda h: h.redirect(302, h.b_url + "/stolen"),
    "redirect-307": lambda h: h.redirect(307, h.b_url + "/stolen"),
    "redirect-308": lambda h: h.redirect(308, h.b_url + "/stolen"),
    "redirect-https-other": lambda h: h.redirect(307, "https://127.0.0.2:%d/stolen" % h.server.state.port_b),
    "redirect-same-origin": lambda h: h.redirect(307, "http://127.0.0.1:%d/ok-json/" % h.server.state.port_a),
    "s3-301": lambda h: h._send(301, S3_301, XML, headers=[("x-amz-bucket-region", "eu-west-1"),
                                                             ("Location", h.b_url + "/stolen")]),
    "skew-year0": lambda h: h.skew("Mon, 01 Jan 0000 00:00:00 GMT"),
    "skew-year9999": lambda h: h.skew("Fri, 31 Dec 9999 23:59:59 GMT"),
    "skew-unrecognised": lambda h: h.skew(http_date(3 * 86400), DENIED),
    "skew-30d": lambda h: h.skew(http_date(30 * 86400)),
    "skew-1h": lambda h: h.skew(http_date(3600)),
    "json-expires-1e300": lambda h: h._send(200, COGNITO % "1e300", "application/x-amz-json-1.1"),
    "json-expires-negative": lambda h: h._send(200, COGNITO % "-5", "application/x-amz-json-1.1"),
    "vending-status-1e300": _vending(status="1e300"),
    "vending-expiration-1e300": _vending(expiration="1e300"),
    "vending-expiration-negative": _vending(expiration="-1"),
    "vending-expiration-year0": _vending(expiration='"0000-01-01T00:00:00Z"'),
    "vending-expiration-soon": lambda h: _vending(expiration='"%s"' % iso_utc(3))(h),
    "identity-expiration-1e300": lambda h: h._send(200, '{"IdentityId":"us-east-1:x","Credentials":{"AccessKeyId'
                                                   '":"A","SecretKey":"s","SessionToken":"t","Expiration":1e300}}'),
    "sts-expiration-absurd": lambda h: h._send(200, STS_XML, "text/xml"),
    "malformed-json": lambda h: h._send(200, '{"AuthenticationResult": {"AccessToken": '),
    "malformed-xml": lambda h: h._send(200, "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>",
                                       "text/xml"),
    "ok-json": lambda h: h._send(200, {"ok": True}),
    "big-body": Handler.big_body,
    "big-content-length": Handler.big_content_length,
    "endless-body": Handler.endless_body,
    "endless-stream": Handler.endless_stream,
    "slow": Handler.slow,
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-a", type=int, required=True, help="port on 127.0.0.1 (A)")
    ap.add_argument("--port-b", type=int, required=True, help="port on 127.0.0.2 (B)")
    cfg = ap.parse_args(argv)
    servers = []
    for role, host, port in (("A", "127.0.0.1", cfg.port_a), ("B", "127.0.0.2", cfg.port_b)):
        srv = ThreadingHTTPServer((host, port), Handler)  # binds and listens here
        srv.daemon_threads = True
        srv.role = role
        servers.append(srv)
    state = State(servers[0].server_address[1], servers[1].server_address[1])
    for srv in servers:
        srv.state = state
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: state.stopping.set())
    sys.stderr.write("hostile_server: A http://127.0.0.1:%d  B http://127.0.0.2:%d\n" % (state.port_a, state.port_b))
    sys.stderr.flush()
    print("ready", flush=True)
    try:
        while not state.stopping.wait(0.5):
            pass
    except KeyboardInterrupt:
        state.stopping.set()
    for srv in servers:
        srv.shutdown()
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
