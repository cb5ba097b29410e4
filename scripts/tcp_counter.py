#!/usr/bin/env python3
"""A loopback TCP relay that counts the connections a client opens: the peer's-eye count of the
transport's connection reuse.

Usage: python3 scripts/tcp_counter.py --target 127.0.0.1:PORT --count-file FILE [--tls-dir DIR]

Listens on a free 127.0.0.1 port and relays each accepted connection to the target, byte for byte.
With --tls-dir it terminates TLS itself first (a test CA and a certificate for localhost/127.0.0.1,
made by tls_server.py's `make_certificates` in DIR) and relays the plaintext: an HTTPS front for a
plain-HTTP peer such as `rclone serve s3`, which still checks every signature (the Host header is the
relay's, as the client signed it). After each accepted connection (and each completed handshake) it
rewrites FILE with {"connections": N, "handshakes": M}. Prints one JSON line when ready:
{"port": N, "ca": "DIR/ca.pem" or null}. Stops on SIGTERM. Only loopback is ever reached: the target
must be a 127.0.0.0/8 address.
"""

import argparse
import ipaddress
import json
import os
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
    counts = {"connections": 0, "handshakes": 0}

    def record(what):
        with lock:
            counts[what] += 1
            temporary = args.count_file + ".tmp"
            with open(temporary, "w") as f:
                json.dump(counts, f)
            os.replace(temporary, args.count_file)

    with open(args.count_file, "w") as f:  # the file exists from the start
        json.dump(counts, f)

    def pump(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def relay(client):
        try:
            if context is not None:
                client.settimeout(10)
                client = context.wrap_socket(client, server_side=True)
                client.settimeout(None)
                record("handshakes")
            upstream = socket.create_connection(target, timeout=10)
            upstream.settimeout(None)
        except (OSError, ssl.SSLError):
            client.close()
            return
        back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        back.start()
        pump(client, upstream)
        back.join()
        client.close()
        upstream.close()

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
