#!/usr/bin/env python3
"""Differential test vectors for Amazon Cognito's SRP variant, with PyPI pycognito as the oracle.

Writes, under vectors/ (see ../shared/spec/vectors.md for the format):
  cognito-srp-pycognito.json              kind cognito-srp
  cognito-device-verifier-pycognito.json  kind cognito-device-verifier
  cognito-device-srp-pycognito.json       kind cognito-device-srp
  cognito-secret-hash-pycognito.json      kind cognito-secret-hash

Every expected value comes out of pycognito 2024.5.1's own code (pycognito/aws_srp.py):
  * the client's `a` is injected by overwriting AWSSRP.small_a_value after construction and
    recomputing AWSSRP.large_a_value with AWSSRP.calculate_a();
  * the TIMESTAMP, which pycognito formats itself from datetime.datetime.utcnow(), is frozen by
    replacing the `datetime` module seen by pycognito.aws_srp with one whose utcnow() returns a
    fixed datetime; the string recorded is the TIMESTAMP pycognito actually returned;
  * the device verifier's randomness (os.urandom(40) for the device password, os.urandom(16) for
    the salt) is injected by replacing the `os` module seen by pycognito.aws_srp;
  * signatures come from AWSSRP.process_challenge / AWSSRP.process_device_challenge; x is not
    exposed by pycognito, so it is recomputed with pycognito's helpers exactly as
    get_password_authentication_key writes it, and the resulting HKDF key is checked against the
    key get_password_authentication_key / get_device_authentication_key return.
Every case is also recomputed by an independent implementation of the vectors.md formulas
(int.to_bytes sign padding, salt and B read as numbers as the AWS JavaScript SDK does,
cryptography's HKDF) and, where B was made as a real server would make it (B = k*v + g^b), by the
server-side S = (A * v^u)^b. Any disagreement aborts the run.

Deterministic: everything is drawn from random.Random(seed); running twice gives identical bytes.
No network: AWSSRP is built with a client object that raises on any attribute access.

Usage: .venv/bin/python scripts/generate_cognito_vectors.py [--seed N] [--out DIR]
"""

import argparse
import base64
import contextlib
import datetime as _datetime
import hashlib
import hmac
import json
import os
import random
import sys
import types
import uuid
from importlib import metadata

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pycognito import aws_srp
from pycognito_hooks import NoNetworkClient, frozen_utc
from pycognito.aws_srp import (
    AWSSRP,
    G_HEX,
    N_HEX,
    calculate_u,
    compute_hkdf,
    generate_hash_device,
    hash_sha256,
    hex_hash,
    hex_to_long,
    long_to_hex,
    pad_hex,
)

PYCOGNITO_VERSION = "2024.5.1"
DEFAULT_SEED = 20260303
SCRIPT = "scripts/generate_cognito_vectors.py"

N = hex_to_long(N_HEX)
G = hex_to_long(G_HEX)
N_BYTES = (N.bit_length() + 7) // 8  # 384


# --------------------------------------------------------------------------------------------
# Hooks into pycognito (no network, frozen clock, scripted randomness)
# --------------------------------------------------------------------------------------------

@contextlib.contextmanager
def scripted_urandom(chunks):
    """Make pycognito.aws_srp's os.urandom(n) return the given byte strings, in order."""
    queue = list(chunks)

    def urandom(n):
        if not queue:
            raise RuntimeError("pycognito asked for more randomness than scripted")
        chunk = queue.pop(0)
        if len(chunk) != n:
            raise RuntimeError(f"pycognito asked for {n} random bytes, script has {len(chunk)}")
        return chunk

    saved = aws_srp.os
    aws_srp.os = types.SimpleNamespace(urandom=urandom)
    try:
        yield
    finally:
        aws_srp.os = saved
    if queue:
        raise RuntimeError("scripted randomness not consumed")


def make_awssrp(pool_id, username, password, a, device=None):
    kwargs = {}
    if device is not None:
        kwargs = dict(
            device_group_key=device["device_group_key"],
            device_key=device["device_key"],
            device_password=device["device_password"],
        )
    srp = AWSSRP(
        username=username,
        password=password,
        pool_id=pool_id,
        client_id="vectorsclientid0000000000a",
        client=NoNetworkClient(),
        **kwargs,
    )
    # Inject a: overwrite pycognito's random 1024-bit small_a_value, recompute A with its own method.
    srp.small_a_value = a
    srp.large_a_value = srp.calculate_a()
    return srp


# --------------------------------------------------------------------------------------------
# Independent implementation of vectors.md (JS-SDK semantics), used only as a cross-check
# --------------------------------------------------------------------------------------------

def pads(n):
    """Sign padding: minimal big-endian bytes, plus a 00 byte when the first byte is >= 0x80."""
    b = n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")
    return b"\x00" + b if b[0] & 0x80 else b


def H(data):
    return hashlib.sha256(data).digest()


K_INDEP = int.from_bytes(H(pads(N) + pads(G)), "big")

ENGLISH_DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
ENGLISH_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def indep_timestamp(when):
    return (f"{ENGLISH_DAYS[when.weekday()]} {ENGLISH_MONTHS[when.month - 1]} {when.day} "
            f"{when.hour:02d}:{when.minute:02d}:{when.second:02d} UTC {when.year}")


def indep_client(identity, secret, a, srp_b_hex, salt_hex, signed_prefix, secret_block_b64, timestamp):
    """identity|":"|secret is hashed for x; signed_prefix is poolName|userId or groupKey|deviceKey."""
    A = pow(G, a, N)
    B = int(srp_b_hex, 16)
    assert 1 < B < N and B % N != 0
    salt = int(salt_hex, 16)  # read as a number, as the AWS JS SDK does
    u = int.from_bytes(H(pads(A) + pads(B)), "big")
    x = int.from_bytes(H(pads(salt) + H((identity + ":" + secret).encode("utf-8"))), "big")
    S = pow((B - K_INDEP * pow(G, x, N)) % N, a + u * x, N)
    key = HKDF(algorithm=hashes.SHA256(), length=16, salt=pads(u),
               info=b"Caldera Derived Key").derive(pads(S))
    msg = signed_prefix.encode("utf-8") + base64.b64decode(secret_block_b64, validate=True) \
        + timestamp.encode("utf-8")
    sig = base64.b64encode(hmac.new(key, msg, hashlib.sha256).digest()).decode("ascii")
    return dict(A=A, B=B, u=u, x=x, S=S, key=key, sig=sig)


def js_pad_equals_pycognito_pad(salt_str):
    """pycognito pads the salt string as received; the JS SDK reads it as a number first."""
    return bytes.fromhex(pad_hex(salt_str)) == pads(int(salt_str, 16))


# --------------------------------------------------------------------------------------------
# Random inputs
# --------------------------------------------------------------------------------------------

REGIONS = [
    "us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "eu-south-2",
    "ap-southeast-2", "ap-northeast-1", "ap-south-1", "sa-east-1", "ca-central-1",
    "me-central-1", "af-south-1", "il-central-1", "us-gov-west-1", "cn-north-1",
]
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

PLAIN_NAMES = [
    "alice", "bob", "carol.smith", "dave_01", "Eve", "frank-o", "grace+test", "heidi@example.com",
    "ivan.petrov@example.org", "judy", "mallory123", "oscar", "peggy_sue", "trent", "victor.v",
    "walter", "zoë", "renée", "jürgen", "søren", "łukasz", "mañana", "名前", "ユーザー", "사용자",
    "пользователь", "χρήστης", "משתמש", "مستخدم", "उपयोगकर्ता", "+14155550123", "x",
]
PASSWORDS = [
    "Passw0rd!", "correct horse battery staple", "P@ssw0rd123", "hunter2hunter2", "Aa1!Aa1!",
    "a:b:c:d", "::colons::", "tab\tinside", "with space ", " leading", "quote\"and\\backslash",
    "Ünïcödé-Pässwörd1", "日本語のパスワード1", "пароль123!", "كلمةالسر1", "密码Mima123",
    "emoji🔐🔑ok1A", "e\u0301-combining", "\u00e9-precomposed", "zero\u200bwidth",
    "ß-ẞ-Straße1", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢1", "Ǆǅǆ", "x" * 99, "😀" * 16, "a", "0", "Tr0ub4dor&3",
]


def rand_pool_id(rng, region=None):
    region = region or rng.choice(REGIONS)
    return f"{region}_{''.join(rng.choice(ALNUM) for _ in range(9))}"


def rand_uuid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def rand_user_id(rng):
    return rand_uuid(rng) if rng.random() < 0.6 else rng.choice(PLAIN_NAMES)


def rand_password(rng):
    r = rng.random()
    if r < 0.55:
        return rng.choice(PASSWORDS)
    if r < 0.8:
        return "".join(rng.choice(ALNUM + "!@#$%^&*()-_=+[]{};:,.<>/?~") for _ in range(rng.randint(8, 40)))
    # random unicode from a few planes
    pools = ["àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ", "αβγδεζηθικλμνξοπρστυφχψω",
             "あいうえおかきくけこさしすせそ", "你好世界密码安全登录", "🔐🔑😀🎉🚀✨"]
    chars = "".join(pools) + ALNUM
    return "".join(rng.choice(chars) for _ in range(rng.randint(6, 24)))


def rand_secret_block(rng):
    n = rng.choice([16, 24, 48, 64, 100, 255, 256, 512, 1024, 1180, 1500, 1])
    return base64.b64encode(rng.randbytes(n)).decode("ascii")


def rand_when(rng, single_digit_day=None):
    while True:
        year = rng.randint(2018, 2037)
        month = rng.randint(1, 12)
        if single_digit_day is True:
            day = rng.randint(1, 9)
        elif single_digit_day is False:
            day = rng.randint(10, 28)
        else:
            day = rng.randint(1, 28)
        when = _datetime.datetime(year, month, day, rng.randint(0, 23), rng.randint(0, 59),
                                  rng.randint(0, 59))
        return when


def a256(rng):
    return rng.getrandbits(256) | (1 << 255)


def a1024(rng):
    # pycognito: get_random(128) % N, i.e. a 1024-bit number (always < N)
    return rng.getrandbits(1024) | (1 << 1023)


def render_hex(rng, n, form):
    """Render a big integer n as a hex string in one of the forms Cognito may send."""
    m = long_to_hex(n)
    if form == "min":
        s = m
    elif form == "upper":
        s = m.upper()
    elif form == "signpad":
        s = pad_hex(n)
    elif form == "signpad-upper":
        s = pad_hex(n).upper()
    elif form.startswith("fixed"):  # zero-filled to a fixed number of hex digits
        width = int(form[5:])
        s = m.rjust(width, "0")
    elif form == "zerofill":  # a few redundant zero bytes (only meaningful for B)
        s = "00" * rng.randint(1, 3) + pad_hex(n)
    else:
        raise ValueError(form)
    assert int(s, 16) == n
    return s


def render_salt(rng, s, form):
    text = render_hex(rng, s, form)
    if not js_pad_equals_pycognito_pad(text):
        # a salt with redundant leading zeros: pycognito and the JS SDK disagree; vectors.md says
        # Cognito never sends one, so fall back to the sign-padded form.
        text = pad_hex(s)
    assert js_pad_equals_pycognito_pad(text)
    return text


def salt_form(rng):
    return rng.choices(["min", "upper", "signpad", "signpad-upper", "fixed32"],
                       weights=[40, 12, 20, 8, 20])[0]


def b_form(rng):
    return rng.choices(["min", "upper", "signpad", "zerofill", "fixed768"],
                       weights=[60, 15, 10, 8, 7])[0]


# --------------------------------------------------------------------------------------------
# Features (for the summary and the case names)
# --------------------------------------------------------------------------------------------

def feats(n):
    """'hi' if the minimal big-endian first byte is >= 0x80, 'short' if shorter than N."""
    b = n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")
    out = []
    if b[0] & 0x80:
        out.append("hi")
    if len(b) < N_BYTES:
        out.append("short")
    if len(long_to_hex(n)) % 2:
        out.append("odd")
    return out


def u_feats(u):
    b = u.to_bytes(max(1, (u.bit_length() + 7) // 8), "big")
    out = []
    if b[0] & 0x80:
        out.append("hi")
    if len(b) < 32:
        out.append("short")
    if len(long_to_hex(u)) % 2:
        out.append("odd")
    return out


# --------------------------------------------------------------------------------------------
# cognito-srp / cognito-device-srp
# --------------------------------------------------------------------------------------------

def srp_x_with_pycognito_helpers(identity, secret, salt_str):
    # get_password_authentication_key / get_device_authentication_key, verbatim:
    #   username_password_hash = hash_sha256(username_password.encode("utf-8"))
    #   x_value = hex_to_long(hex_hash(pad_hex(salt) + username_password_hash))
    username_password = f"{identity}:{secret}"
    username_password_hash = hash_sha256(username_password.encode("utf-8"))
    return hex_hash(pad_hex(salt_str) + username_password_hash)


def run_pycognito_srp(c, device=False):
    """Run pycognito on case inputs c; return the case's expect dict and the raw numbers."""
    when = c["_when"]
    a = int(c["a_hex"], 16)
    if device:
        dev = dict(device_group_key=c["device_group_key"], device_key=c["device_key"],
                   device_password=c["device_password"])
        srp = make_awssrp(c["_pool_id"], "device-user", "unused-password", a, device=dev)
        identity = c["device_group_key"] + c["device_key"]
        secret = c["device_password"]
        signed_prefix = c["device_group_key"] + c["device_key"]
    else:
        srp = make_awssrp(c["pool_id"], c["_username"], c["password"], a)
        pool_name = c["pool_id"].split("_")[1]
        identity = pool_name + c["user_id_for_srp"]
        secret = c["password"]
        signed_prefix = pool_name + c["user_id_for_srp"]

    A = srp.large_a_value
    B = hex_to_long(c["srp_b_hex"])
    assert 1 < B < N and B % N != 0, "invalid SRP_B generated"

    # pycognito's own intermediates
    u = calculate_u(A, B)
    x_hex = srp_x_with_pycognito_helpers(identity, secret, c["salt_hex"])
    x = hex_to_long(x_hex)
    g_mod_pow_xn = pow(srp.val_g, x, srp.big_n)
    int_value2 = B - srp.val_k * g_mod_pow_xn
    S = pow(int_value2, srp.small_a_value + u * x, srp.big_n)
    key = compute_hkdf(bytearray.fromhex(pad_hex(S)), bytearray.fromhex(pad_hex(long_to_hex(u))))

    if device:
        key_oracle = srp.get_device_authentication_key(
            c["device_group_key"], c["device_key"], c["device_password"], B, c["salt_hex"])
    else:
        key_oracle = srp.get_password_authentication_key(
            c["user_id_for_srp"], c["password"], B, c["salt_hex"])
    assert key == key_oracle, "helper-recomputed HKDF key differs from pycognito's"

    challenge = {"SALT": c["salt_hex"], "SRP_B": c["srp_b_hex"],
                 "SECRET_BLOCK": c["secret_block_b64"]}
    with frozen_utc(when):
        if device:
            challenge["USERNAME"] = "device-user"
            resp = srp.process_device_challenge(challenge)
        else:
            challenge["USER_ID_FOR_SRP"] = c["user_id_for_srp"]
            challenge["USERNAME"] = c["_username"]
            resp = srp.process_challenge(challenge, {"USERNAME": c["_username"]})
    timestamp = resp["TIMESTAMP"]
    signature = resp["PASSWORD_CLAIM_SIGNATURE"]
    assert resp["PASSWORD_CLAIM_SECRET_BLOCK"] == c["secret_block_b64"]

    # the signature with the helper-derived key, as process_challenge builds the message
    msg = (signed_prefix.encode("utf-8") + base64.standard_b64decode(c["secret_block_b64"])
           + timestamp.encode("utf-8"))
    assert base64.standard_b64encode(hmac.new(key, msg, hashlib.sha256).digest()).decode() == signature

    # independent cross-checks
    assert timestamp == indep_timestamp(when), (timestamp, indep_timestamp(when))
    ind = indep_client(identity, secret, a, c["srp_b_hex"], c["salt_hex"], signed_prefix,
                       c["secret_block_b64"], timestamp)
    assert (ind["A"], ind["B"], ind["u"], ind["x"], ind["S"], ind["key"], ind["sig"]) == \
        (A, B, u, x, S, key, signature), "independent recomputation disagrees with pycognito"
    if "_server_b" in c:
        v = c["_v"]
        assert pow(A * pow(v, u, N), c["_server_b"], N) == S, "server-side S disagrees"

    expect = {
        "srp_a_hex": long_to_hex(A),         # what pycognito sends as SRP_A (minimal hex)
        "u_hex": f"{u:064x}",
        "x_hex": x_hex,
        "S_hex": pad_hex(S),                 # the bytes hashed as HKDF ikm
        "hkdf_key_hex": key.hex(),
        "signature_b64": signature,
    }
    return expect, timestamp, dict(A=A, B=B, u=u, S=S)


def server_B(rng, v, want=None, tries=20000):
    """A real server's B = (k*v + g^b) mod N; optionally redraw b until B has a property."""
    kv = K_INDEP * v % N
    b = rng.getrandbits(256) | (1 << 255)
    gb = pow(G, b, N)
    for _ in range(tries):  # walk b, b+1, ...: g^(b+1) = g^b * g is cheap
        B = (kv + gb) % N
        if 1 < B < N and (want is None or want(B, b)):
            return B, b
        b += 1
        gb = gb * G % N
    raise RuntimeError("could not find B with the wanted property")


class SrpCaseBuilder:
    def __init__(self, rng, device=False):
        self.rng = rng
        self.device = device
        self.cases = []
        self.names = set()

    def identity_secret(self, c):
        if self.device:
            return c["device_group_key"] + c["device_key"], c["device_password"]
        return c["pool_id"].split("_")[1] + c["user_id_for_srp"], c["password"]

    def x_of(self, c):
        identity, secret = self.identity_secret(c)
        return int.from_bytes(H(pads(int(c["salt_hex"], 16)) + H((identity + ":" + secret).encode("utf-8"))), "big")

    def build(self, tag, base, *, a=None, a_bits=256, salt=None, salt_fmt=None, b_mode="server",
              b_fmt=None, want_A=None, want_B=None, want_u=None, want_S=None, when=None,
              single_digit_day=None):
        """base: identity fields. Returns the finished case (appended)."""
        rng = self.rng
        c = dict(base)
        # salt
        if salt is None:
            salt = rng.getrandbits(128) or 1
        c["salt_hex"] = render_salt(rng, salt, salt_fmt or salt_form(rng))
        # a (redrawn until A has a property)
        aa = a if a is not None else (a256(rng) if a_bits == 256 else a1024(rng))
        A = pow(G, aa, N)
        if want_A is not None:
            assert a is None
            for _ in range(200000):  # walk a, a+1, ...: A*g is cheap (g = 2)
                if want_A(A):
                    break
                aa += 1
                A = A * G % N
            else:
                raise RuntimeError("no a found")
        width = 64 if a_bits == 256 else 256
        c["a_hex"] = f"{aa:0{width}x}"
        # B
        x = self.x_of(c)
        v = pow(G, x, N)
        if b_mode == "server":
            def ok(B, b):
                if want_B is not None and not want_B(B):
                    return False
                if want_u is None and want_S is None:
                    return True
                u = int.from_bytes(H(pads(A) + pads(B)), "big")
                if want_u is not None and not want_u(u):
                    return False
                if want_S is not None:
                    S = pow(A * pow(v, u, N), b, N)
                    if not want_S(S):
                        return False
                return True
            B, b = server_B(rng, v, ok, tries=200000)
            c["_server_b"] = b
            c["_v"] = v
        elif b_mode == "moto":  # random 128-bit, as moto sends (uuid4().hex)
            for _ in range(200000):
                B = rng.getrandbits(128)
                if B > 1 and (want_B is None or want_B(B)):
                    if want_u is None or want_u(int.from_bytes(H(pads(A) + pads(B)), "big")):
                        break
            else:
                raise RuntimeError("no moto B")
        elif b_mode == "random":  # any 1 < B < N
            bits = rng.choice([64, 160, 256, 512, 1024, 2048, 3000, 3064, 3071])
            for _ in range(200000):
                B = rng.getrandbits(bits)
                if 1 < B < N and (want_B is None or want_B(B)):
                    if want_u is None or want_u(int.from_bytes(H(pads(A) + pads(B)), "big")):
                        break
            else:
                raise RuntimeError("no random B")
        else:
            raise ValueError(b_mode)
        form = b_fmt or b_form(rng)
        if b_mode == "moto" and b_fmt is None:
            form = "fixed32"
        c["srp_b_hex"] = render_hex(rng, B, form)
        c["_when"] = when or rand_when(rng, single_digit_day)
        if "secret_block_b64" not in c:
            c["secret_block_b64"] = rand_secret_block(rng)
        expect, timestamp, nums = run_pycognito_srp(c, device=self.device)
        c["timestamp"] = timestamp
        c["expect"] = expect
        c["_nums"] = nums

        # name
        bits = [f"{len(self.cases):03d}", tag, f"a{a_bits}"]
        for label, n in (("A", nums["A"]), ("B", nums["B"]), ("S", nums["S"])):
            f = feats(n)
            if "hi" in f:
                bits.append(f"{label}hi")
            if "short" in f:
                bits.append(f"{label}short")
        fu = u_feats(nums["u"])
        if "hi" in fu:
            bits.append("uhi")
        if "short" in fu:
            bits.append("ushort")
        elif "odd" in fu:
            bits.append("uodd")
        s = int(c["salt_hex"], 16)
        if pads(s)[0] == 0:
            bits.append("salthi")
        if len(c["salt_hex"]) % 2:
            bits.append("saltodd")
        if c["salt_hex"] != c["salt_hex"].lower():
            bits.append("saltupper")
        if len(c["srp_b_hex"]) % 2:
            bits.append("Bodd")
        if c["srp_b_hex"] != c["srp_b_hex"].lower():
            bits.append("Bupper")
        if b_mode == "moto":
            bits.append("moto")
        if c["_when"].day < 10:
            bits.append("day1")
        name = "-".join(bits)
        assert name not in self.names
        self.names.add(name)
        c["name"] = name
        self.cases.append(c)
        return c


def user_base(rng, region=None, user_id=None, password=None):
    return {
        "pool_id": rand_pool_id(rng, region),
        "user_id_for_srp": user_id if user_id is not None else rand_user_id(rng),
        "password": password if password is not None else rand_password(rng),
        "_username": "user-" + "".join(rng.choice(ALNUM) for _ in range(6)),
    }


def device_base(rng, region=None, password=None):
    region = region or rng.choice(REGIONS)
    if password is None:
        password = base64.standard_b64encode(rng.randbytes(40)).decode("ascii")
    return {
        "_pool_id": rand_pool_id(rng, region),
        "device_group_key": "-" + "".join(rng.choice(ALNUM) for _ in range(9)),
        "device_key": f"{region}_{rand_uuid(rng)}",
        "device_password": password,
    }


def SHORT(n):  # shorter than N: first byte of the 384-byte representation is 00
    return n < (1 << (8 * (N_BYTES - 1)))


def HI(n):
    return pads(n)[0] == 0


def U_SHORT(u):
    return u < (1 << 248)


def U_ODD(u):
    return u < (1 << 252)


def gen_srp_cases(rng):
    bld = SrpCaseBuilder(rng)
    # the vectors.md example timestamp, single-digit day
    bld.build("example", user_base(rng, "us-east-1", rand_uuid(rng), "Passw0rd!"),
              when=_datetime.datetime(2026, 3, 3, 4, 5, 6), salt_fmt="min", b_fmt="min")
    bld.build("example", user_base(rng, "eu-west-1", "alice", "Passw0rd!"),
              when=_datetime.datetime(2026, 11, 29, 21, 39, 33), salt_fmt="min", b_fmt="min")
    # broad realistic mix: server-made B, 16-byte salts in assorted forms
    for i in range(90):
        bld.build("mix", user_base(rng), a_bits=256)
    for i in range(20):
        bld.build("mix", user_base(rng), a_bits=1024)
    # each sign-padding trap forced both ways
    for i in range(12):
        bld.build("Ashort", user_base(rng), want_A=SHORT)
    for i in range(3):
        bld.build("Ashort", user_base(rng), a_bits=1024, want_A=SHORT)
    for i in range(8):
        bld.build("Ahi", user_base(rng), want_A=HI)
        bld.build("Alo", user_base(rng), want_A=lambda A: not HI(A) and not SHORT(A))
    for i in range(10):
        bld.build("Bshort", user_base(rng), want_B=SHORT)
    for i in range(8):
        bld.build("Bhi", user_base(rng), want_B=HI)
    for i in range(8):
        bld.build("Sshort", user_base(rng), want_S=SHORT)
    for i in range(8):
        bld.build("Shi", user_base(rng), want_S=HI)
    for i in range(10):
        bld.build("ushort", user_base(rng), want_u=U_SHORT)
    for i in range(8):
        bld.build("uodd", user_base(rng), want_u=lambda u: U_ODD(u) and not U_SHORT(u))
    for i in range(8):
        bld.build("uhi", user_base(rng), want_u=HI)
    # salts: high first byte, short, odd-length, upper-case, already sign-padded, long
    for form in ["min", "upper", "signpad", "signpad-upper"]:
        for i in range(4):
            s = rng.getrandbits(128) | (1 << 127)  # first byte >= 0x80
            bld.build("salthi", user_base(rng), salt=s, salt_fmt=form)
    for i in range(24):
        nbytes = rng.randint(1, 8)
        s = rng.getrandbits(8 * nbytes) or 1
        bld.build("saltshort", user_base(rng), salt=s, salt_fmt=rng.choice(["min", "upper", "signpad"]))
    for i in range(10):
        d = 2 * rng.randint(0, 15) + 1  # an odd number of hex digits
        s = rng.randint(16 ** (d - 1), 16 ** d - 1)
        bld.build("saltodd", user_base(rng), salt=s, salt_fmt=rng.choice(["min", "upper"]))
    for i in range(6):
        s = rng.getrandbits(rng.choice([256, 384, 512]))
        bld.build("saltlong", user_base(rng), salt=s)
    for i in range(6):  # 15-byte salt with first byte >= 0x80 sent as fixed 32 hex digits: 00 is the sign byte
        s = rng.getrandbits(120) | (1 << 119)
        bld.build("salt00hi", user_base(rng), salt=s, salt_fmt="fixed32")
    # moto-style challenges: SRP_B and SALT 128-bit uuid4 hex, USER_ID_FOR_SRP = sub (UUID)
    for i in range(30):
        bld.build("moto", user_base(rng, user_id=rand_uuid(rng)), salt_fmt="fixed32", b_mode="moto")
    for i in range(6):
        bld.build("moto", user_base(rng, user_id=rand_uuid(rng)), salt_fmt="fixed32", b_mode="moto",
                  want_B=HI)
    # arbitrary B (not of the form k*v + g^b) of assorted sizes and forms
    for i in range(14):
        bld.build("Brandom", user_base(rng), b_mode="random")
    # B with upper-case / odd-length / redundant zeros explicitly
    for form in ["upper", "zerofill", "fixed768", "signpad"]:
        for i in range(3):
            bld.build("Bform", user_base(rng), b_fmt=form)
    for i in range(4):
        bld.build("Bodd", user_base(rng), b_fmt=rng.choice(["min", "upper"]),
                  want_B=lambda B: len(long_to_hex(B)) % 2 == 1)
    # regions and identities
    for region in REGIONS:
        bld.build("region", user_base(rng, region))
    for name in PLAIN_NAMES:
        bld.build("user", user_base(rng, user_id=name))
    for pw in PASSWORDS:
        bld.build("password", user_base(rng, password=pw))
    # timestamps: single-digit and double-digit days, month/year edges
    for i in range(10):
        bld.build("day1", user_base(rng), single_digit_day=True)
        bld.build("day2", user_base(rng), single_digit_day=False)
    for when in [_datetime.datetime(2024, 2, 29, 0, 0, 0), _datetime.datetime(2025, 12, 31, 23, 59, 59),
                 _datetime.datetime(2026, 1, 1, 0, 0, 0), _datetime.datetime(2030, 10, 10, 10, 10, 10),
                 _datetime.datetime(2027, 9, 9, 9, 9, 9), _datetime.datetime(2038, 1, 19, 3, 14, 8)]:
        bld.build("date", user_base(rng), when=when)
    return bld.cases


def gen_device_srp_cases(rng, verifier_cases):
    bld = SrpCaseBuilder(rng, device=True)
    # reuse confirmed devices from the verifier set: salt as stored, B made from the stored verifier
    for vc in verifier_cases[:40]:
        base = {
            "_pool_id": rand_pool_id(rng, vc["device_key"].split("_")[0]),
            "device_group_key": vc["device_group_key"],
            "device_key": vc["device_key"],
            "device_password": vc["device_password"],
        }
        c = bld.build("confirmed", base, salt=int(vc["salt_hex"], 16))
        assert pads(c["_v"]) == bytes.fromhex(vc["expect"]["verifier_hex"])
    for i in range(30):
        bld.build("mix", device_base(rng), a_bits=rng.choice([256, 256, 256, 1024]))
    for i in range(5):
        bld.build("Ashort", device_base(rng), want_A=SHORT)
        bld.build("Bshort", device_base(rng), want_B=SHORT)
        bld.build("ushort", device_base(rng), want_u=U_SHORT)
    for i in range(3):
        bld.build("Sshort", device_base(rng), want_S=SHORT)
    for i in range(4):
        bld.build("Ahi", device_base(rng), want_A=HI)
        bld.build("Bhi", device_base(rng), want_B=HI)
        bld.build("Shi", device_base(rng), want_S=HI)
        bld.build("uhi", device_base(rng), want_u=HI)
    for i in range(8):
        nbytes = rng.randint(1, 15)
        bld.build("saltshort", device_base(rng), salt=rng.getrandbits(8 * nbytes) | 1,
                  salt_fmt=rng.choice(["min", "upper", "signpad"]))
    for i in range(6):
        bld.build("salthi", device_base(rng), salt=rng.getrandbits(128) | (1 << 127),
                  salt_fmt=rng.choice(["min", "upper", "signpad", "signpad-upper"]))
    for pw in ["not-base64: ünïcødé", "short", "🔐" * 5]:
        bld.build("password", device_base(rng, password=pw))
    for i in range(5):
        bld.build("day1", device_base(rng), single_digit_day=True)
        bld.build("day2", device_base(rng), single_digit_day=False)
    bld.build("example", device_base(rng, "us-east-1"), when=_datetime.datetime(2026, 3, 3, 4, 5, 6))
    return bld.cases


# --------------------------------------------------------------------------------------------
# cognito-device-verifier
# --------------------------------------------------------------------------------------------

def gen_device_verifier_cases(rng):
    cases = []

    def one(tag, pw_bytes=None, salt_bytes=None, want_v=None):
        region = rng.choice(REGIONS)
        group_key = "-" + "".join(rng.choice(ALNUM) for _ in range(9))
        device_key = f"{region}_{rand_uuid(rng)}"
        for _ in range(20000):
            pwb = pw_bytes if pw_bytes is not None else rng.randbytes(40)
            sb = salt_bytes if salt_bytes is not None else rng.randbytes(16)
            with scripted_urandom([pwb, sb]):
                device_password, config = generate_hash_device(group_key, device_key)
            v = int.from_bytes(base64.b64decode(config["PasswordVerifier"]), "big")
            if want_v is None or want_v(v):
                break
            assert pw_bytes is None
        else:
            raise RuntimeError("no verifier found")
        # pycognito's salt: pad_hex(get_random(16)) == pad_hex(int of the 16 random bytes)
        salt_str = pad_hex(int.from_bytes(sb, "big"))
        assert base64.b64decode(config["Salt"]) == bytes.fromhex(salt_str)
        # x as generate_hash_device computes it (not returned by pycognito)
        combined_string_hash = hash_sha256(f"{group_key}{device_key}:{device_password}".encode("utf-8"))
        x_hex = hex_hash(salt_str + combined_string_hash)
        verifier_hex = pad_hex(pow(G, hex_to_long(x_hex), N))
        assert base64.b64decode(config["PasswordVerifier"]) == bytes.fromhex(verifier_hex)
        # independent
        x_ind = H(pads(int(salt_str, 16)) + H((group_key + device_key + ":" + device_password).encode()))
        assert x_ind.hex() == x_hex
        assert pads(pow(G, int.from_bytes(x_ind, "big"), N)) == bytes.fromhex(verifier_hex)
        assert base64.b64encode(pads(int(salt_str, 16))).decode() == config["Salt"]

        bits = [f"{len(cases):03d}", tag]
        f = feats(v)
        if "hi" in f:
            bits.append("vhi")
        if "short" in f:
            bits.append("vshort")
        s = int(salt_str, 16)
        if pads(s)[0] == 0:
            bits.append("salthi")
        if len(pads(s)) < 16:
            bits.append("saltshort")
        cases.append({
            "name": "-".join(bits),
            "device_group_key": group_key,
            "device_key": device_key,
            "device_password": device_password,
            "salt_hex": salt_str,
            "expect": {
                "x_hex": x_hex,
                "verifier_hex": verifier_hex,
                "password_verifier_b64": config["PasswordVerifier"],
                "salt_b64": config["Salt"],
            },
        })

    for i in range(40):
        one("mix")
    for i in range(6):  # salt's first random byte >= 0x80: 17-byte salt with a 00 sign byte
        one("salthi", salt_bytes=bytes([rng.randint(0x80, 0xff)]) + rng.randbytes(15))
    for i in range(6):  # first random byte < 0x80
        one("saltlo", salt_bytes=bytes([rng.randint(0x10, 0x7f)]) + rng.randbytes(15))
    for i in range(4):  # first random byte 0x0?: the number has an odd number of hex digits
        one("saltodd", salt_bytes=bytes([rng.randint(0x01, 0x0f)]) + rng.randbytes(15))
    for i in range(4):  # leading 00 byte then < 0x80: 15-byte salt
        one("salt00", salt_bytes=b"\x00" + bytes([rng.randint(0x01, 0x7f)]) + rng.randbytes(14))
    for i in range(4):  # leading 00 byte then >= 0x80: 16 bytes again, 00 is now the sign byte
        one("salt00hi", salt_bytes=b"\x00" + bytes([rng.randint(0x80, 0xff)]) + rng.randbytes(14))
    one("salt0000", salt_bytes=b"\x00\x00" + rng.randbytes(14))
    for i in range(5):
        one("vshort", want_v=SHORT)
    for i in range(6):
        one("vhi", want_v=HI)
    return cases


# --------------------------------------------------------------------------------------------
# cognito-secret-hash
# --------------------------------------------------------------------------------------------

def gen_secret_hash_cases(rng):
    lower_alnum = "abcdefghijklmnopqrstuvwxyz0123456789"

    def client_id():
        return "".join(rng.choice(lower_alnum) for _ in range(26))

    def client_secret(n=51):
        return "".join(rng.choice(lower_alnum) for _ in range(n))

    usernames = [
        "alice", "Bob", "carol.smith@example.com", "dave+filter@sub.example.co.uk", "+14155550123",
        "zoë", "jürgen.müller", "名前", "ユーザー名", "사용자", "пользователь", "مستخدم", "😀user",
        "e\u0301", "\u00e9", rand_uuid(rng), rand_uuid(rng), "user with spaces", "x",
        "a" * 128, "tab\tname", "quote\"name", "Ω≈ç√∫",
    ]
    cases = []
    for u in usernames:
        cases.append((u, client_id(), client_secret()))
    # secret lengths around the HMAC block size, and very long
    for n in (1, 63, 64, 65, 128, 200, 1000):
        cases.append((rng.choice(usernames[:6]), client_id(), client_secret(n)))
    cases.append(("ünïcode-secret", client_id(), "sécret-ünïcødé-🔑" * 5))
    out = []
    for i, (username, cid, secret) in enumerate(cases):
        got = AWSSRP.get_secret_hash(username, cid, secret)
        ind = base64.b64encode(hmac.new(secret.encode("utf-8"), (username + cid).encode("utf-8"),
                                        hashlib.sha256).digest()).decode()
        assert got == ind
        out.append({
            "name": f"{i:03d}-secret{len(secret.encode())}B",
            "username": username,
            "client_id": cid,
            "client_secret": secret,
            "expect": {"secret_hash_b64": got},
        })
    return out


# --------------------------------------------------------------------------------------------

def public(case, keys):
    out = {"name": case["name"]}
    for k in keys:
        out[k] = case[k]
    out["expect"] = case["expect"]
    return out


SRP_KEYS = ["pool_id", "user_id_for_srp", "password", "a_hex", "srp_b_hex", "salt_hex",
            "secret_block_b64", "timestamp"]
DEVICE_SRP_KEYS = ["device_group_key", "device_key", "device_password", "a_hex", "srp_b_hex",
                   "salt_hex", "secret_block_b64", "timestamp"]


def write(path, obj):
    data = (json.dumps(obj, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def summarize(label, cases):
    counts = {}

    def bump(k):
        counts[k] = counts.get(k, 0) + 1

    for c in cases:
        nums = c["_nums"]
        for lab in ("A", "B", "S"):
            for f in feats(nums[lab]):
                bump(f"{lab}_{f}")
        for f in u_feats(nums["u"]):
            bump(f"u_{f}")
        s = int(c["salt_hex"], 16)
        if pads(s)[0] == 0:
            bump("salt_hi")
        if len(pads(s)) < 16:
            bump("salt_lt16B")
        if len(c["salt_hex"]) % 2:
            bump("salt_oddhex")
        if c["salt_hex"] != c["salt_hex"].lower():
            bump("salt_upper")
        if len(c["srp_b_hex"]) % 2:
            bump("B_oddhex")
        if c["srp_b_hex"] != c["srp_b_hex"].lower():
            bump("B_upper")
        if nums["B"].bit_length() <= 128:
            bump("B_le128bit")
        if len(c["a_hex"]) > 64:
            bump("a_1024bit")
        if c["_when"].day < 10:
            bump("day_single_digit")
        else:
            bump("day_double_digit")
    print(f"{label}: {len(cases)} cases; " + ", ".join(f"{k}={counts[k]}" for k in sorted(counts)),
          file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(os.path.dirname(here), "vectors"))
    args = ap.parse_args()

    version = metadata.version("pycognito")
    if version != PYCOGNITO_VERSION:
        sys.exit(f"pycognito {PYCOGNITO_VERSION} required, found {version}")
    os.makedirs(args.out, exist_ok=True)
    seed_note = f"{SCRIPT} --seed {args.seed}"

    rng = random.Random(args.seed)
    srp_cases = gen_srp_cases(random.Random(rng.getrandbits(64)))
    verifier_cases = gen_device_verifier_cases(random.Random(rng.getrandbits(64)))
    device_cases = gen_device_srp_cases(random.Random(rng.getrandbits(64)), verifier_cases)
    secret_cases = gen_secret_hash_cases(random.Random(rng.getrandbits(64)))

    summarize("cognito-srp", srp_cases)
    summarize("cognito-device-srp", device_cases)

    files = {
        "cognito-srp-pycognito.json": {
            "kind": "cognito-srp",
            "source": (
                f"pycognito {PYCOGNITO_VERSION} (PyPI), pycognito/aws_srp.py, used as the oracle: "
                "AWSSRP built with no network client; a injected by overwriting AWSSRP.small_a_value "
                "and recomputing large_a_value with AWSSRP.calculate_a; signature_b64 and timestamp "
                "from AWSSRP.process_challenge with aws_srp.datetime.datetime.utcnow frozen; u from "
                "calculate_u; x recomputed with hash_sha256/hex_hash/pad_hex/hex_to_long exactly as "
                "get_password_authentication_key writes it; S from its statements; hkdf_key_hex from "
                "compute_hkdf, checked equal to AWSSRP.get_password_authentication_key. Cross-checked "
                "against an independent implementation of vectors.md (salt and B read as numbers, "
                "as the AWS JS SDK does) and, for server-made B, against S = (A*v^u)^b. "
                f"Generated by {seed_note}."),
            "cases": [public(c, SRP_KEYS) for c in srp_cases],
        },
        "cognito-device-verifier-pycognito.json": {
            "kind": "cognito-device-verifier",
            "source": (
                f"pycognito {PYCOGNITO_VERSION} (PyPI), pycognito/aws_srp.py generate_hash_device "
                "(what AWSSRP.confirm_device sends as DeviceSecretVerifierConfig), with its "
                "os.urandom(40) (device password) and os.urandom(16) (salt) injected; "
                "password_verifier_b64 and salt_b64 are its output; salt_hex is pycognito's "
                "pad_hex(get_random(16)); x_hex recomputed with hash_sha256/hex_hash exactly as "
                "generate_hash_device writes it and checked against the verifier. Cross-checked "
                f"against an independent implementation of vectors.md. Generated by {seed_note}."),
            "cases": [c for c in verifier_cases],
        },
        "cognito-device-srp-pycognito.json": {
            "kind": "cognito-device-srp",
            "source": (
                f"pycognito {PYCOGNITO_VERSION} (PyPI), pycognito/aws_srp.py, used as the oracle: "
                "AWSSRP built with device_key/device_group_key/device_password and no network "
                "client; a injected via small_a_value + calculate_a; signature_b64 and timestamp "
                "from AWSSRP.process_device_challenge with aws_srp.datetime.datetime.utcnow frozen; "
                "u from calculate_u; x recomputed with hash_sha256/hex_hash/pad_hex as "
                "get_device_authentication_key writes it; hkdf_key_hex from compute_hkdf, checked "
                "equal to AWSSRP.get_device_authentication_key. The first cases reuse devices from "
                "cognito-device-verifier-pycognito.json with B = k*v + g^b from their verifier. "
                "Cross-checked against an independent implementation of vectors.md and, for "
                f"server-made B, against S = (A*v^u)^b. Generated by {seed_note}."),
            "cases": [public(c, DEVICE_SRP_KEYS) for c in device_cases],
        },
        "cognito-secret-hash-pycognito.json": {
            "kind": "cognito-secret-hash",
            "source": (
                f"pycognito {PYCOGNITO_VERSION} (PyPI), pycognito/aws_srp.py AWSSRP.get_secret_hash; "
                f"cross-checked with hmac/hashlib. Generated by {seed_note}."),
            "cases": secret_cases,
        },
    }
    for fname, obj in files.items():
        size = write(os.path.join(args.out, fname), obj)
        print(f"wrote {os.path.join(args.out, fname)}: {len(obj['cases'])} cases, {size} bytes",
              file=sys.stderr)


if __name__ == "__main__":
    main()
