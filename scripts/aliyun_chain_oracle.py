#!/usr/bin/env python3
"""alibabacloud-credentials' default chain as an oracle for AuthCore's Alibaba Cloud chain.

One JSON object per line on stdin, one answer per line on stdout:
    {"op": "start"}                          -> {"metadataPort": P}: a loopback stand-in for the ECS metadata
                                                service (reached as an HTTP proxy: requests for
                                                http://100.100.100.200/... arrive with absolute URIs) and for
                                                a credentials URI (GET /credentials-uri); its answers are scripted
    {"op": "resolve", "env": {...}, "sts": "http://127.0.0.1:PORT"}
                                             -> {"accessKeyId", "securityToken", "source"} or {"error", "message"}
Each resolve runs `alibabacloud_credentials.client.Client().get_credential()` in a fresh Python process whose
environment is exactly "env" (the SDK reads its variables once, at import). In that process every connection
to an address that is not loopback is refused, and STS requests (sts*.aliyuncs.com) are sent to "sts", the
Alibaba STS stand-in, which checks their RPC signatures with aliyun-python-sdk-core. "source" is the SDK's
provider_name without its "default/" prefix.
Oracle: alibabacloud-credentials (version in scripts/requirements.txt).
"""

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

TOKEN = "authcore-ecs-metadata-token"
ROLE = "authcore-ecs-role"


def expiration():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))


class Metadata(BaseHTTPRequestHandler):
    """The ECS metadata service (version 2: the role list and credentials need the session token) and a
    credentials URI, answering by path whatever host the request names."""

    def log_message(self, fmt, *args):
        pass

    def _send(self, status, body, kind="text/plain"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_PUT(self):
        if urlsplit(self.path).path == "/latest/api/token" and self.headers.get("X-aliyun-ecs-metadata-token-ttl-seconds"):
            return self._send(200, TOKEN)
        self._send(404, "not found")

    def do_GET(self):
        path = urlsplit(self.path).path
        if path == "/credentials-uri":
            return self._send(200, json.dumps({"Code": "Success", "AccessKeyId": "STS.URIKEY0000001", "AccessKeySecret": "uri-secret",
                                               "SecurityToken": "uri-token", "Expiration": expiration()}), "application/json")
        base = "/latest/meta-data/ram/security-credentials/"
        if not path.startswith(base):
            return self._send(404, "not found")
        if self.headers.get("X-aliyun-ecs-metadata-token") != TOKEN:
            return self._send(401, "a session token is required")
        if path == base:
            return self._send(200, ROLE)
        if path == base + ROLE:
            return self._send(200, json.dumps({"Code": "Success", "AccessKeyId": "STS.ECSKEY0000001", "AccessKeySecret": "ecs-secret",
                                               "SecurityToken": "ecs-token", "Expiration": expiration(),
                                               "LastUpdated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}), "application/json")
        self._send(404, "no such role")


CHILD = r'''
import json, os, socket, sys, logging
from urllib.parse import urlsplit
_connect = socket.socket.connect
def _loopback_only(self, address):
    host = address[0] if isinstance(address, tuple) else str(address)
    if not (host.startswith("127.") or host in ("::1", "localhost")):
        raise OSError("refused a connection to %s: tests reach only loopback" % host)
    return _connect(self, address)
socket.socket.connect = _loopback_only
logging.getLogger("credentials").disabled = True
from Tea.core import TeaCore
_do_action = TeaCore.do_action
_sts = urlsplit(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else None
def _to_stand_in(request, runtime_option=None):
    host = request.headers.get("host", "")
    if _sts is not None and host.startswith("sts") and host.endswith(".aliyuncs.com"):
        request.protocol = "http"
        request.headers["host"] = _sts.hostname
        request.port = _sts.port
    return _do_action(request, runtime_option)
TeaCore.do_action = staticmethod(_to_stand_in)
from alibabacloud_credentials.client import Client
try:
    c = Client().get_credential()
    name = c.provider_name or ""
    print(json.dumps({"accessKeyId": c.access_key_id, "securityToken": c.security_token,
                      "source": name[len("default/"):] if name.startswith("default/") else name}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__, "message": str(e)[:600]}))
'''


def resolve(request):
    env = dict(request.get("env") or {})
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, request.get("sts") or ""], env=env, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return {"error": "Timeout", "message": "the SDK did not answer in 60 s"}
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    if not lines:
        return {"error": "NoOutput", "message": done.stderr.decode("utf-8", "replace")[-600:]}
    return json.loads(lines[-1])


def main():
    server = None
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if op == "quit":
            print(json.dumps({"ok": True}), flush=True)
            break
        if op == "start":
            if server is None:
                server = ThreadingHTTPServer(("127.0.0.1", 0), Metadata)
                threading.Thread(target=server.serve_forever, daemon=True).start()
            print(json.dumps({"metadataPort": server.server_address[1]}), flush=True)
            continue
        print(json.dumps(resolve(request)), flush=True)
    if server is not None:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
