#!/usr/bin/env python3
"""A loopback app server for OSS self-signed mode: it holds the only copy of the OSS key and signs
for authenticated callers through `authcore oss sign-string --policy FILE` (AuthCore's
OSSSigningAuthority: the policy check happens there, this script is the HTTP plumbing).

Stdlib only. Binds 127.0.0.1 on a free port and prints one JSON line on stdout: {"port": N}.

  POST /sign   needs header X-App-Session equal to --session-token (else 401 {"Code":"Unauthorized"}).
               The body (JSON {"version":…,"stringToSign":…[,"date","region","canonicalRequest"]}, at most
               128 KiB) goes to `AUTHCORE oss sign-string --policy FILE` on stdin, with the key in its
               environment (OSS_ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET from this process's environment:
               never in an argv). Exit 0 -> 200 and its stdout ({"accessKeyId","signature"}); exit 1 ->
               403 {"Code":"NotPermitted","Message": its error line}; anything else -> 400.
  GET /_count  200 {"signed": N, "refused": M}

Usage: .venv/bin/python scripts/oss_signing_server.py --authcore PATH --policy FILE --session-token T
       (with OSS_ACCESS_KEY_ID and OSS_ACCESS_KEY_SECRET in the environment)
"""

import argparse
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import peer_server


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("oss_signing_server: " + (fmt % args) + "\n")

    def _send(self, status, body):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/_count":
            with self.server.lock:
                return self._send(200, {"signed": self.server.signed, "refused": self.server.refused})
        self._send(404, {"Code": "NotFound", "Message": self.path})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if 0 < length <= 131072 else b""
        if self.path != "/sign":
            return self._send(404, {"Code": "NotFound", "Message": self.path})
        if self.headers.get("X-App-Session") != self.server.cfg.session_token:
            return self._send(401, {"Code": "Unauthorized", "Message": "no valid app session"})
        env = {k: v for k, v in os.environ.items() if not k.startswith("OSS_")}
        env.update(OSS_ACCESS_KEY_ID=os.environ["OSS_ACCESS_KEY_ID"], OSS_ACCESS_KEY_SECRET=os.environ["OSS_ACCESS_KEY_SECRET"])
        done = subprocess.run([self.server.cfg.authcore, "oss", "sign-string", "--policy", self.server.cfg.policy],
                              input=body, capture_output=True, env=env, timeout=30)
        with self.server.lock:
            if done.returncode == 0:
                self.server.signed += 1
            else:
                self.server.refused += 1
        message = done.stderr.decode("utf-8", "replace").strip().removeprefix("error: ")
        if done.returncode == 0:
            return self._send(200, done.stdout)
        if done.returncode == 1:
            return self._send(403, {"Code": "NotPermitted", "Message": message})
        self._send(400, {"Code": "BadRequest", "Message": message})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--authcore", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--session-token", required=True)
    cfg = ap.parse_args(argv)
    if not os.environ.get("OSS_ACCESS_KEY_ID") or not os.environ.get("OSS_ACCESS_KEY_SECRET"):
        sys.exit("oss_signing_server: OSS_ACCESS_KEY_ID and OSS_ACCESS_KEY_SECRET must be set")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.cfg = cfg
    server.lock = threading.Lock()
    server.signed = server.refused = 0
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    return peer_server.serve(server, "oss_signing_server: listening on http://127.0.0.1:%d" % server.server_address[1])


if __name__ == "__main__":
    peer_server.run(main)
