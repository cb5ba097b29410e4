#!/usr/bin/env python3
"""An SRP-6a peer running real pysrp code, for interop tests (driven over stdin/stdout).

pysrp = PyPI `srp` 1.0.22, pure-Python module `srp._pysrp` (never the OpenSSL/ctypes backend, which
drops leading zero bytes of salts), in RFC 5054 mode (`rfc5054_enable()`): k = H(N | PAD(g)),
u = H(PAD(A) | PAD(B)), and PAD(g) inside M1 (AuthCore's `proof_pad_g`). Groups: the seven RFC 5054
groups (1536, 3072, 6144 through pysrp's NG_CUSTOM, see srp_groups.py). Hash per session.

Protocol: one JSON object per line on stdin, one JSON object per line on stdout (flushed each time).
Hex is big-endian; A, B and the verifier are written as minimal big-endian hex (as pysrp gives them),
salt, M1, M2 and K as raw bytes. Input hex may be upper or lower case; numbers may carry leading zeros.

  {"op":"create_verifier","group":2048,"hash":"sha256","username":U,"password":P[,"salt_len":16]}
      -> {"salt_hex":..,"verifier_hex":..}   (pysrp create_salted_verification_key; random salt of
         salt_len bytes, default 16; pysrp drops leading 00 bytes, so the salt may come out shorter)
  {"op":"server_start","group":..,"hash":..,"username":..,"salt_hex":..,"verifier_hex":..,"A_hex":..[,"b_hex":..]}
      -> {"B_hex":..}, or {"error":..} if pysrp refuses A (A % N == 0)
  {"op":"server_verify","M1_hex":..}  -> {"ok":true,"M2_hex":..,"K_hex":..} or {"ok":false}
  {"op":"client_start","group":..,"hash":..,"username":..,"password":..[,"a_hex":..]}  -> {"A_hex":..}
  {"op":"client_challenge","salt_hex":..,"B_hex":..}  -> {"M1_hex":..}, or {"error":..} if pysrp refuses
      B (B % N == 0, or u == 0)
  {"op":"client_verify","M2_hex":..}  -> {"ok":true|false,"K_hex":..}  (K as computed by the client)
  {"op":"quit"}  -> {"ok":true}, then exit 0 (end of input also exits 0)
Unknown op, bad JSON, missing field, bad hex, no session -> {"error":"..."}; the peer keeps going.
Optional a_hex / b_hex make a session deterministic (passed to pysrp as bytes_a / bytes_b, which
pysrp requires to be 256 bytes: the number is left-padded; a, b must be below 2^2048); default is
pysrp's own random a, b (256 random bytes, top bit set).
group: 2048, "2048" or "rfc5054-2048". hash: sha1 | sha256 | sha512.
One server session and one client session at a time; a new *_start replaces the old session.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import srp._pysrp as P  # noqa: E402
import srp_groups  # noqa: E402


class PeerError(Exception):
    pass


def field(msg, name, kind=str):
    if name not in msg:
        raise PeerError("missing field %r" % name)
    value = msg[name]
    if kind is str and not isinstance(value, str):
        raise PeerError("field %r must be a string" % name)
    return value


def hex_bytes(msg, name, allow_empty=False, number=False):
    """Raw bytes of a hex field; a number (number=True) may have odd length."""
    s = field(msg, name).strip()
    if len(s) % 2:
        if not number:
            raise PeerError("field %r has odd length" % name)
        s = "0" + s
    try:
        b = bytes.fromhex(s)
    except ValueError:
        raise PeerError("field %r is not hex" % name)
    if not b and not allow_empty:
        raise PeerError("field %r is empty" % name)
    return b


def hex_out(b):
    return b.hex()


def hash_alg(msg):
    name = field(msg, "hash")
    if name not in srp_groups.HASHES:
        raise PeerError("unknown hash %r (sha1, sha256, sha512)" % name)
    return srp_groups.HASHES[name]


def group_args(msg):
    try:
        bits = srp_groups.parse_group(field(msg, "group", kind=object))
    except ValueError as e:
        raise PeerError(str(e))
    return srp_groups.pysrp_ng_args(bits)


def ephemeral(msg, name):
    """Optional a_hex / b_hex -> 256 bytes for pysrp's bytes_a / bytes_b (or None: pysrp's random)."""
    if name not in msg:
        return None
    n = int.from_bytes(hex_bytes(msg, name, number=True), "big")
    if not 0 < n < 1 << 2048:
        raise PeerError("%s must be in 1 .. 2^2048-1" % name)
    return n.to_bytes(256, "big")


class Peer:
    def __init__(self):
        self.server = None
        self.client = None

    def op_create_verifier(self, msg):
        salt_len = msg.get("salt_len", 16)
        if not isinstance(salt_len, int) or isinstance(salt_len, bool) or not 1 <= salt_len <= 1024:
            raise PeerError("salt_len must be an integer 1..1024")
        salt, v = P.create_salted_verification_key(
            field(msg, "username"), field(msg, "password"), hash_alg=hash_alg(msg), salt_len=salt_len,
            **group_args(msg))
        return {"salt_hex": hex_out(salt), "verifier_hex": hex_out(v)}

    def op_server_start(self, msg):
        self.server = None
        ng = group_args(msg)
        alg = hash_alg(msg)
        username = field(msg, "username")
        salt = hex_bytes(msg, "salt_hex")
        v = hex_bytes(msg, "verifier_hex", number=True)
        A = hex_bytes(msg, "A_hex", number=True)  # non-empty: pysrp would silently skip the A check for b""
        verifier = P.Verifier(username, salt, v, A, hash_alg=alg, bytes_b=ephemeral(msg, "b_hex"), **ng)
        _, B = verifier.get_challenge()
        if B is None:
            return {"error": "pysrp refused A (SRP-6a safety check: A % N == 0)"}
        self.server = verifier
        return {"B_hex": hex_out(B)}

    def op_server_verify(self, msg):
        if self.server is None:
            raise PeerError("no server session (server_start first)")
        M1 = hex_bytes(msg, "M1_hex", allow_empty=True)
        M2 = self.server.verify_session(M1)
        if M2 is None or not self.server.authenticated():
            return {"ok": False}
        return {"ok": True, "M2_hex": hex_out(M2), "K_hex": hex_out(self.server.get_session_key())}

    def op_client_start(self, msg):
        self.client = None
        ng = group_args(msg)
        user = P.User(field(msg, "username"), field(msg, "password"), hash_alg=hash_alg(msg),
                      bytes_a=ephemeral(msg, "a_hex"), **ng)
        _, A = user.start_authentication()
        self.client = user
        return {"A_hex": hex_out(A)}

    def op_client_challenge(self, msg):
        if self.client is None:
            raise PeerError("no client session (client_start first)")
        salt = hex_bytes(msg, "salt_hex")
        B = hex_bytes(msg, "B_hex", allow_empty=True, number=True)
        M1 = self.client.process_challenge(salt, B)
        if M1 is None:
            return {"error": "pysrp refused B (SRP-6a safety check: B % N == 0 or u == 0)"}
        return {"M1_hex": hex_out(M1)}

    def op_client_verify(self, msg):
        if self.client is None or self.client.M is None:
            raise PeerError("no client session with a challenge (client_challenge first)")
        M2 = hex_bytes(msg, "M2_hex", allow_empty=True)
        self.client.verify_session(M2)
        return {"ok": bool(self.client.authenticated()), "K_hex": hex_out(self.client.K)}

    def handle(self, line):
        try:
            msg = json.loads(line)
        except ValueError as e:
            return {"error": "bad JSON: %s" % e}
        if not isinstance(msg, dict):
            return {"error": "expected a JSON object"}
        op = msg.get("op")
        if op == "quit":
            return None
        fn = getattr(self, "op_%s" % op, None) if isinstance(op, str) else None
        if fn is None:
            return {"error": "unknown op %r" % (op,)}
        try:
            return fn(msg)
        except PeerError as e:
            return {"error": str(e)}
        except Exception as e:  # pysrp raising on odd input: report, keep going
            return {"error": "%s: %s" % (type(e).__name__, e)}


def main():
    P.rfc5054_enable(True)
    peer = Peer()
    out = sys.stdout
    for raw in iter(sys.stdin.buffer.readline, b""):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            reply = {"error": "input is not UTF-8"}
        else:
            if not line.strip():
                continue
            reply = peer.handle(line)
        if reply is None:
            out.write(json.dumps({"ok": True}) + "\n")
            out.flush()
            return 0
        out.write(json.dumps(reply, sort_keys=True) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
