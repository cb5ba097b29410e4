#!/usr/bin/env python3
"""A loopback TCP relay that counts the connections a client opens: the peer's-eye count of the
transport's connection reuse.

Usage: python3 scripts/tcp_counter.py --target 127.0.0.1:PORT --count-file FILE [--tls-dir DIR]

Listens on a free 127.0.0.1 port and relays each accepted connection to the target, byte for byte.
With --tls-dir it terminates TLS itself first (a test CA and a certificate for localhost/127.0.0.1,
made by tls_server.py's `make_certificates` in DIR) and relays the plaintext: an HTTPS front for a
plain-HTTP peer such as `rclone serve s3`, which still checks every signature (the Host header is the
relay's, as the client signed it). After each accepted connection (and each completed handshake) it
rewrites FILE with {"connections": N, "handshakes": M, "resumed": R} (R: handshakes that resumed a
TLS session). Prints one JSON line when ready:
{"port": N, "ca": "DIR/ca.pem" or null}. Stops on SIGTERM. Only loopback is ever reached: the target
must be a 127.0.0.0/8 address.
"""

import argparse
import ipaddress
import json
import os
import select
import signal
import socket
import ssl
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tls_server import make_certificates  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--count-file", required=True)
    parser.add_argument("--tls-dir")
    args = parser.parse_args()
    host, _, port = args.target.rpartition(":")
    if not ipaddress.ip_address(host).is_loopback:
        sys.stderr.write("tcp_counter: the target must be a loopback address\n")
        return 2
    target = (host, int(port))
    context, ca = None, None
    if args.tls_dir:
        os.makedirs(args.tls_dir, exist_ok=True)
        ca, pairs = make_certificates(args.tls_dir)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*pairs["good"])
    lock = threading.Lock()
    counts = {"connections": 0, "handshakes": 0, "resumed": 0}

    def record(what):
        with lock:
            counts[what] += 1
            temporary = args.count_file + ".tmp"
            with open(temporary, "w") as f:
                json.dump(counts, f)
            os.replace(temporary, args.count_file)

    with open(args.count_file, "w") as f:  # the file exists from the start
        json.dump(counts, f)

    def relay(client):
        # One thread per connection, reading whichever side is ready: an ssl.SSLSocket must not be
        # read and written from two threads at once (OpenSSL's SSL objects are not thread-safe).
        upstream = None
        try:
            if context is not None:
                client.settimeout(10)
                client = context.wrap_socket(client, server_side=True)
                record("handshakes")
                if client.session_reused:
                    record("resumed")
            client.settimeout(30)
            upstream = socket.create_connection(target, timeout=30)
            while True:
                if isinstance(client, ssl.SSLSocket) and client.pending():
                    readable = [client]
                else:
                    readable, _, _ = select.select([client, upstream], [], [], 60)
                if not readable:
                    return
                for source in readable:
                    data = source.recv(65536)
                    if not data:
                        return
                    (upstream if source is client else client).sendall(data)
        except (OSError, ssl.SSLError):
            pass
        finally:
            for s in (client, upstream):
                if s is not None:
                    try:
                        s.close()
                    except OSError:
                        pass

    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(json.dumps({"port": listener.getsockname()[1], "ca": ca}), flush=True)
    while True:
        client, _ = listener.accept()
        record("connections")
        threading.Thread(target=relay, args=(client,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
