#!/usr/bin/env python3
"""A small app backend for developer-authenticated identities, for the integration tests.

It vends Cognito developer tokens the way the Developer Guide's backend does: it calls
GetOpenIdTokenForDeveloperIdentity through boto3 (an implementation independent of AuthCore), signed
with an IAM user's key against moto in signature-checking mode (so a wrong key or signature is refused
by moto, peers.md), and hands the app the identity id and token.

At start it creates an identity pool with the developer provider name, then listens on a free
loopback port and prints one JSON line on stdout: {"port": N, "identityPoolId": "..."}.

  GET  /token?user=U[&identityId=I]   200 {"identityId":…,"token":…,"expiresIn":DURATION}
                                      (TokenDuration=DURATION is sent; IdentityId links when given)
                                      503 {"error":"down"} while failures are pending
  POST /fail?times=N                  the next N /token calls answer 503
  GET  /stats                         200 {"calls":N,"failed":M}: /token calls so far, and how many failed
Threaded: concurrent callers are served at once (the test checks the client asks once).

Usage: BACKEND_SECRET_ACCESS_KEY=SECRET .venv/bin/python scripts/developer_backend.py --moto URL --ak AKIA...
           [--provider login.authcore.test] [--duration SECONDS]
(the secret comes from the environment, never from the command line)
"""

import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import boto3
from botocore.config import Config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--moto", required=True)
    parser.add_argument("--ak", required=True)
    parser.add_argument("--provider", default="login.authcore.test")
    parser.add_argument("--duration", type=int, default=20)
    args = parser.parse_args()

    client = boto3.client(
        "cognito-identity", endpoint_url=args.moto, region_name="us-east-1", aws_access_key_id=args.ak,
        aws_secret_access_key=os.environ["BACKEND_SECRET_ACCESS_KEY"], config=Config(retries={"max_attempts": 1}))
    pool = client.create_identity_pool(
        IdentityPoolName="authcore-backend", AllowUnauthenticatedIdentities=True,
        DeveloperProviderName=args.provider)["IdentityPoolId"]
    state = {"calls": 0, "failed": 0, "fail": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status, doc):
            body = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if url.path == "/stats":
                with lock:
                    return self.answer(200, {"calls": state["calls"], "failed": state["failed"]})
            if url.path != "/token" or "user" not in query:
                return self.answer(404, {"error": "not found"})
            with lock:
                state["calls"] += 1
                failing = state["fail"] > 0
                if failing:
                    state["fail"] -= 1
                    state["failed"] += 1
            if failing:
                return self.answer(503, {"error": "down"})
            params = {"IdentityPoolId": pool, "Logins": {args.provider: query["user"][0]}, "TokenDuration": args.duration}
            if "identityId" in query:
                params["IdentityId"] = query["identityId"][0]
            answer = client.get_open_id_token_for_developer_identity(**params)
            self.answer(200, {"identityId": answer["IdentityId"], "token": answer["Token"], "expiresIn": args.duration})

        def do_POST(self):
            url = urlsplit(self.path)
            if url.path != "/fail":
                return self.answer(404, {"error": "not found"})
            with lock:
                state["fail"] = int(parse_qs(url.query).get("times", ["1"])[0])
            self.answer(200, {"fail": state["fail"]})

        def log_message(self, fmt, *a):
            sys.stderr.write("developer_backend: " + (fmt % a) + "\n")

    # SIGTERM ends it even when the parent started it with the signal ignored or blocked.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(json.dumps({"port": server.server_address[1], "identityPoolId": pool}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
