#!/usr/bin/env python3
"""Self-test of scripts/pysrp_peer.py: pysrp on both sides, driven through the peer's line protocol.

Run: .venv/bin/python scripts/test_pysrp_peer.py   (or with pytest). Ends with "N passed, M failed".
"""

import json
import os
import select
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEER = os.path.join(HERE, "pysrp_peer.py")
VECTORS = os.path.join(ROOT, "vectors", "srp6a-pysrp.json")
sys.path.insert(0, HERE)

import srp_groups  # noqa: E402

TIMEOUT = 60


class Peer:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, PEER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def raw(self, line):
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        assert ready, "peer did not answer within %ds" % TIMEOUT
        out = self.proc.stdout.readline()
        assert out.endswith(b"\n"), "peer closed its output: %r" % out
        return json.loads(out)

    def __call__(self, **msg):
        return self.raw(json.dumps(msg))

    def quit(self):
        assert self(op="quit") == {"ok": True}
        assert self.proc.wait(TIMEOUT) == 0

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def handshake(peer, group, hash_name, username, password, login_password):
    reg = peer(op="create_verifier", group=group, hash=hash_name, username=username, password=password)
    assert set(reg) == {"salt_hex", "verifier_hex"}, reg
    c = peer(op="client_start", group=group, hash=hash_name, username=username, password=login_password)
    assert "A_hex" in c, c
    s = peer(op="server_start", group=group, hash=hash_name, username=username,
             salt_hex=reg["salt_hex"], verifier_hex=reg["verifier_hex"], A_hex=c["A_hex"])
    assert "B_hex" in s, s
    ch = peer(op="client_challenge", salt_hex=reg["salt_hex"], B_hex=s["B_hex"])
    assert "M1_hex" in ch, ch
    sv = peer(op="server_verify", M1_hex=ch["M1_hex"])
    return sv


def check_handshake(group, hash_name, username, password):
    peer = Peer()
    try:
        sv = handshake(peer, group, hash_name, username, password, password)
        assert sv["ok"] is True, sv
        cv = peer(op="client_verify", M2_hex=sv["M2_hex"])
        assert cv["ok"] is True, cv
        assert cv["K_hex"] == sv["K_hex"], (cv, sv)
        assert len(bytes.fromhex(sv["K_hex"])) == {"sha1": 20, "sha256": 32, "sha512": 64}[hash_name]
        # a tampered M2 is refused by a fresh client session
        sv2 = handshake(peer, group, hash_name, username, password, password)
        bad = bytes.fromhex(sv2["M2_hex"])
        bad = bytes([bad[0] ^ 1]) + bad[1:]
        assert peer(op="client_verify", M2_hex=bad.hex())["ok"] is False
        # wrong password: the server refuses M1
        wrong = handshake(peer, group, hash_name, username, password, password + "x")
        assert wrong == {"ok": False}, wrong
        peer.quit()
    finally:
        peer.kill()


def test_handshake_2048_sha256():
    check_handshake(2048, "sha256", "alice", "password123")


def test_handshake_3072_sha256_unicode():
    check_handshake(3072, "sha256", "Zoë Ångström", "пароль 密码 🔐")


def test_handshake_3072_sha1_empty_password():
    check_handshake("rfc5054-3072", "sha1", "bob", "")


def test_bad_public_values_and_bad_input():
    peer = Peer()
    try:
        N, _ = srp_groups.get_N_g(2048)
        reg = peer(op="create_verifier", group=2048, hash="sha256", username="u", password="p")
        for bad_A in ("00", N.to_bytes(256, "big").hex(), (2 * N).to_bytes(257, "big").hex()):
            r = peer(op="server_start", group=2048, hash="sha256", username="u", salt_hex=reg["salt_hex"],
                     verifier_hex=reg["verifier_hex"], A_hex=bad_A)
            assert "error" in r and "B_hex" not in r, r
        assert "error" in peer(op="server_verify", M1_hex="00")  # the refused session is gone
        peer(op="client_start", group=2048, hash="sha256", username="u", password="p")
        for bad_B in ("00", N.to_bytes(256, "big").hex()):
            r = peer(op="client_challenge", salt_hex=reg["salt_hex"], B_hex=bad_B)
            assert "error" in r and "M1_hex" not in r, r
        assert "error" in peer.raw("{not json")
        assert "error" in peer.raw("[1, 2]")
        assert "error" in peer(op="frobnicate")
        assert "error" in peer(op="client_start", group=1000, hash="sha256", username="u", password="p")
        assert "error" in peer(op="client_start", group=2048, hash="md5", username="u", password="p")
        assert "error" in peer(op="create_verifier", group=2048, hash="sha256", username="u")
        assert "error" in peer(op="server_start", group=2048, hash="sha256", username="u", salt_hex="zz",
                               verifier_hex="01", A_hex="02")
        # still alive and working after all that
        assert "salt_hex" in peer(op="create_verifier", group=2048, hash="sha256", username="u", password="p")
        peer.quit()
    finally:
        peer.kill()


def test_replays_generated_vectors():
    """With a, b, salt and v from vectors/srp6a-pysrp.json, the peer reproduces B, M1, M2 and K."""
    with open(VECTORS, encoding="utf-8") as f:
        cases = [c for c in json.load(f)["cases"] if c.get("options", {}).get("proof_pad_g")]
    wanted = [c for c in cases if c["group"] in ("rfc5054-2048", "rfc5054-3072")
              and ("salt00" in c["name"] or "short-" in c["name"])]
    assert len(wanted) >= 4, len(wanted)
    peer = Peer()
    try:
        for c in wanted:
            e = c["expect"]
            a = peer(op="client_start", group=c["group"], hash=c["hash"], username=c["username"],
                     password=c["password"], a_hex=c["a_hex"])
            assert int(a["A_hex"], 16) == int(e["A_hex"], 16), c["name"]
            s = peer(op="server_start", group=c["group"], hash=c["hash"], username=c["username"],
                     salt_hex=c["salt_hex"], verifier_hex=e["v_hex"], A_hex=a["A_hex"], b_hex=c["b_hex"])
            assert int(s["B_hex"], 16) == int(e["B_hex"], 16), c["name"]
            m1 = peer(op="client_challenge", salt_hex=c["salt_hex"], B_hex=s["B_hex"])
            assert m1["M1_hex"] == e["M1_hex"].lower(), c["name"]
            sv = peer(op="server_verify", M1_hex=m1["M1_hex"])
            assert sv == {"ok": True, "M2_hex": e["M2_hex"].lower(), "K_hex": e["K_hex"].lower()}, c["name"]
            cv = peer(op="client_verify", M2_hex=sv["M2_hex"])
            assert cv == {"ok": True, "K_hex": e["K_hex"].lower()}, c["name"]
        peer.quit()
    finally:
        peer.kill()


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    passed = failed = 0
    for name, fn in tests:
        try:
            fn()
        except Exception as e:  # report every failure, then the total
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
        else:
            passed += 1
            print("PASS %s" % name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
