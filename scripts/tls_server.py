#!/usr/bin/env python3
"""HTTPS stand-in for the HTTP/1.1 transport's TLS tests (stdlib `ssl` over OpenSSL; certificates by the
`openssl` command).

Usage: python3 scripts/tls_server.py --dir DIR

Makes, in DIR, a test CA (`ca.pem`) and two server certificates it signed: one naming `localhost`,
127.0.0.1 and each `--name NAME`, one naming only `other.example`. Serves HTTPS on two free 127.0.0.1 ports, the first with
the right certificate, the second with the wrong name, and prints one JSON line on stdout:
{"port": N, "wrongNamePort": M, "ca": "DIR/ca.pem"}. It checks nothing about the client: the tests
prove what the client accepts and refuses (chain, name, framing, caps).

Paths: /ok (a JSON body with Content-Length), /headers (the request's fields as a JSON list of [name, value]), /chunked (a chunked body with a chunk extension and a
trailer), /endless (a chunked body that never ends), /redirect (302 to /ok on the same origin),
/unframed (a body with no length that ends when the server closes, without a TLS close_notify),
/trickle (Content-Length 1000, one byte every 0.2 s: never idle, never done in time).
"""

import argparse
import json
import os
import signal
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def make_certificates(directory, names=()):
    ca_key, ca = os.path.join(directory, "ca.key"), os.path.join(directory, "ca.pem")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca_key,
            "-out", ca, "-days", "2", "-subj", "/CN=AuthCore test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    pairs = {}
    good_san = ",".join(["DNS:localhost", "IP:127.0.0.1", "IP:::1"] + ["DNS:" + n for n in names])
    for name, san in (("good", good_san), ("wrong", "DNS:other.example")):
        key, csr, cert = (os.path.join(directory, name + ext) for ext in (".key", ".csr", ".pem"))
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr,
                "-subj", "/CN=" + name)
        ext = os.path.join(directory, name + ".ext")
        with open(ext, "w") as f:
            f.write("subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n" % san)
        openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
                "-extfile", ext)
        pairs[name] = (cert, key)
    return ca, pairs


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("tls_server: %s\n" % (fmt % args))

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/ok":
            body = json.dumps({"ok": True, "host": self.headers.get("Host")}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/headers":
            body = json.dumps([[k, v] for k, v in self.headers.items()]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Trailer", "X-Check")
            self.end_headers()
            self.wfile.write(b"5;name=value\r\nhello\r\n1 \r\n \r\n5\r\nworld\r\n0\r\nX-Check: done\r\n\r\n")
        elif path == "/endless":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            frame = b"%x\r\n" % 65536 + b"z" * 65536 + b"\r\n"
            try:
                for _ in range(4096):  # 256 MiB at most
                    self.wfile.write(frame)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                pass
            self.close_connection = True
        elif path == "/unframed":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"a body whose end only the close marks")
            self.close_connection = True
        elif path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(1000):
                    self.wfile.write(b"t")
                    self.wfile.flush()
                    time.sleep(0.2)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                pass
            self.close_connection = True
        elif path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/ok")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()


def serve(cert, key):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--name", action="append", default=[],
                    help="another DNS name for the good certificate (a name a proxy maps to 127.0.0.1)")
    args = ap.parse_args()
    directory = args.dir
    ca, pairs = make_certificates(directory, args.name)
    good, wrong = serve(*pairs["good"]), serve(*pairs["wrong"])
    stop = threading.Event()
    # Set explicitly: the test runner's threads may hand down an ignored or blocked SIGTERM.
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    print(json.dumps({"port": good, "wrongNamePort": wrong, "ca": ca}), flush=True)
    try:
        while not stop.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
