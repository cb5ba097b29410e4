#!/usr/bin/env python3
"""Cognito PASSWORD_VERIFIER claims made and checked by PyPI pycognito 2024.5.1, for interop tests.

Reads one JSON object on stdin, writes one JSON object on stdout.

  {"op":"client", "pool_id", "user_id_for_srp", "password", "a_hex", "srp_b_hex", "salt_hex",
   "secret_block_b64", "timestamp"}
      -> {"srp_a_hex", "signature_b64"}        (pycognito's SRP_A and PASSWORD_CLAIM_SIGNATURE)
  {"op":"verify", ...the same fields..., "signature_b64"}
      -> {"ok": true|false}                    (recomputed with pycognito, constant-time compare)

Device variants (DEVICE_SRP_AUTH / DEVICE_PASSWORD_VERIFIER), same shape with
"device_group_key", "device_key", "device_password" instead of pool_id/user_id_for_srp/password:
  {"op":"device-client", ...} -> {"srp_a_hex", "signature_b64"}
  {"op":"device-verify", ...} -> {"ok": true|false}

`a_hex` may be omitted for "client"/"device-client": pycognito's own random 1024-bit a is used.

How pycognito is driven: AWSSRP is built with a client object that refuses any use (no network);
`a` is injected by setting AWSSRP.small_a_value and recomputing large_a_value with
AWSSRP.calculate_a(). If `timestamp` is exactly what pycognito would format for some UTC time
(English "EEE MMM d HH:mm:ss UTC yyyy", day not zero-padded), the signature comes from
AWSSRP.process_challenge / process_device_challenge with pycognito's datetime frozen at that time;
otherwise (any other string, e.g. a zero-padded day) it is pycognito's
get_password_authentication_key / get_device_authentication_key key with the HMAC message built
exactly as process_challenge builds it (pool name | user id | secret block | timestamp).

`secret_block_b64` is decoded as pycognito decodes it (base64.standard_b64decode, which drops
characters outside the alphabet): moto's hyphenated-UUID SECRET_BLOCK is accepted, as by pycognito.

Errors: {"error": "..."} on stdout, exit status 2.
"""

import base64
import binascii
import datetime as _datetime
import hashlib
import hmac
import json
import sys

from pycognito_hooks import NoNetworkClient, frozen_utc
from pycognito.aws_srp import AWSSRP, N_HEX, hex_to_long, long_to_hex

N = hex_to_long(N_HEX)
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


class InputError(Exception):
    pass


def parse_cognito_timestamp(text):
    """The naive UTC datetime pycognito would format as exactly `text`, or None."""
    parts = text.split(" ")
    if len(parts) != 6 or parts[4] != "UTC" or parts[1] not in MONTHS:
        return None
    try:
        hh, mm, ss = (int(p) for p in parts[3].split(":"))
        when = _datetime.datetime(int(parts[5]), MONTHS.index(parts[1]) + 1, int(parts[2]), hh, mm, ss)
    except ValueError:
        return None
    if AWSSRP.get_cognito_formatted_timestamp(when) != text:
        return None
    return when


def field(req, name, kind=str):
    if name not in req:
        raise InputError(f"missing field: {name}")
    value = req[name]
    if not isinstance(value, kind):
        raise InputError(f"{name}: expected a string")
    return value


def hex_number(req, name):
    text = field(req, name)
    try:
        return int(text, 16)
    except ValueError:
        raise InputError(f"{name}: not hex") from None


def compute(req, device):
    if device:
        dgk = field(req, "device_group_key")
        dk = field(req, "device_key")
        dpw = field(req, "device_password")
        srp = AWSSRP(username="device-user", password="unused", pool_id="us-east-1_interop",
                     client_id="interop", client=NoNetworkClient(),
                     device_group_key=dgk, device_key=dk, device_password=dpw)
    else:
        pool_id = field(req, "pool_id")
        if "_" not in pool_id:
            raise InputError("pool_id: expected REGION_NAME")
        user_id = field(req, "user_id_for_srp")
        password = field(req, "password")
        srp = AWSSRP(username=user_id, password=password, pool_id=pool_id, client_id="interop",
                     client=NoNetworkClient())
    if "a_hex" in req:
        a = hex_number(req, "a_hex")
        if a == 0:
            raise InputError("a_hex: zero")
        srp.small_a_value = a
        srp.large_a_value = srp.calculate_a()
    srp_b_hex = field(req, "srp_b_hex")
    B = hex_number(req, "srp_b_hex")
    if B <= 1 or B >= N:  # vectors.md: B >= N or B = 0 mod N is invalid; B = 1 is degenerate
        raise InputError("srp_b_hex: out of range")
    salt_hex = field(req, "salt_hex")
    hex_number(req, "salt_hex")
    secret_block_b64 = field(req, "secret_block_b64")
    try:
        # pycognito's own decoding (non-validating: characters outside the base64 alphabet are
        # dropped, so moto's hyphenated-UUID SECRET_BLOCK decodes to 24 bytes, as in pycognito)
        secret_block = base64.standard_b64decode(secret_block_b64)
    except (binascii.Error, ValueError):
        raise InputError("secret_block_b64: not base64") from None
    timestamp = field(req, "timestamp")

    challenge = {"SALT": salt_hex, "SRP_B": srp_b_hex, "SECRET_BLOCK": secret_block_b64,
                 "USERNAME": "interop-user"}
    when = parse_cognito_timestamp(timestamp)
    if when is not None:
        with frozen_utc(when):
            if device:
                resp = srp.process_device_challenge(challenge)
            else:
                challenge["USER_ID_FOR_SRP"] = user_id
                resp = srp.process_challenge(challenge, {"USERNAME": "interop-user"})
        if resp["TIMESTAMP"] != timestamp:
            raise RuntimeError("frozen timestamp not honoured")
        signature = resp["PASSWORD_CLAIM_SIGNATURE"]
    else:
        if device:
            key = srp.get_device_authentication_key(dgk, dk, dpw, B, salt_hex)
            prefix = (dgk + dk).encode("utf-8")
        else:
            key = srp.get_password_authentication_key(user_id, password, B, salt_hex)
            prefix = (pool_id.split("_")[1] + user_id).encode("utf-8")
        msg = prefix + secret_block + timestamp.encode("utf-8")
        signature = base64.standard_b64encode(hmac.new(key, msg, hashlib.sha256).digest()).decode()
    return long_to_hex(srp.large_a_value), signature


def handle(req):
    if not isinstance(req, dict):
        raise InputError("expected a JSON object")
    op = req.get("op")
    if op in ("client", "device-client"):
        srp_a_hex, signature = compute(req, op == "device-client")
        return {"srp_a_hex": srp_a_hex, "signature_b64": signature}
    if op in ("verify", "device-verify"):
        if "a_hex" not in req:
            raise InputError("missing field: a_hex")
        claimed = field(req, "signature_b64")
        _, expected = compute(req, op == "device-verify")
        try:
            claimed_bytes = base64.b64decode(claimed, validate=True)
        except (binascii.Error, ValueError):
            return {"ok": False}
        return {"ok": hmac.compare_digest(claimed_bytes, base64.b64decode(expected))}
    raise InputError(f"unknown op: {op!r}")


def main():
    try:
        req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        out = handle(req)
    except (InputError, json.JSONDecodeError, UnicodeDecodeError) as e:
        sys.stdout.write(json.dumps({"error": str(e)}) + "\n")
        return 2
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
