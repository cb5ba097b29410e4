#!/usr/bin/env python3
"""A WebAuthn relying party on loopback whose every check is py_webauthn's (PyPI webauthn 3.0.1):
the independent verifier of what AuthCore's software authenticator makes.

  webauthn_rp.py --rp-id authcore.test --origin https://login.authcore.test

Prints {"port": N} when it listens on 127.0.0.1:N; stops on SIGTERM. State is in memory. Every
endpoint takes and answers JSON (POST):

  /registration/options   {"userName"}            -> {"ceremony", "options": <creation options object,
                          generate_registration_options + options_to_json: ES256 and RS256, resident key
                          required, user verification preferred, existing credentials excluded>}
  /registration/verify    {"ceremony", "credential": <RegistrationResponseJSON>}
                          -> verify_registration_response(expected challenge, origin, RP id)
                          {"verified": true, "credentialId", "fmt", "signCount"} and the credential kept
  /authentication/options {}                      -> {"ceremony", "options": <request options as a JSON
                          *string*, as Cognito's CREDENTIAL_REQUEST_OPTIONS: every kept credential
                          allowed, user verification required>}
  /authentication/verify  {"ceremony", "credential": <AuthenticationResponseJSON object or string>}
                          -> verify_authentication_response(expected challenge, origin, RP id, the kept
                          public key and sign count, user verification required)
                          {"verified": true, "newSignCount"} and the count kept

A refusal is 400 {"error": "<exception class>: <message>"} (py_webauthn's own messages: "Unexpected
client data origin", "Unexpected RP ID hash", "Client data challenge was not expected challenge",
"Response sign count of N was not greater than current count of M", ...). A ceremony is used once.
"""
import argparse
import json
import os
import secrets
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from webauthn import (generate_authentication_options, generate_registration_options, options_to_json,
                      verify_authentication_response, verify_registration_response)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.structs import (AuthenticatorSelectionCriteria, PublicKeyCredentialDescriptor,
                                      ResidentKeyRequirement, UserVerificationRequirement)
from webauthn.helpers.cose import COSEAlgorithmIdentifier

LOCK = threading.Lock()
CEREMONIES = {}   # id -> {"kind", "challenge"}
CREDENTIALS = {}  # credential id (bytes) -> {"public_key", "sign_count"}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
            status, body = route(self.path, request)
        except Exception as error:  # a refusal of py_webauthn, or a malformed request
            status, body = 400, {"error": "%s: %s" % (type(error).__name__, error)}
        self.answer(status, body)


def take(ceremony, kind):
    with LOCK:
        entry = CEREMONIES.pop(ceremony, None)
    if not entry or entry["kind"] != kind:
        raise ValueError("unknown or used ceremony")
    return entry["challenge"]


def route(path, request):
    rp_id, origin = ARGS.rp_id, ARGS.origin
    if path == "/registration/options":
        challenge = secrets.token_bytes(32)
        with LOCK:
            existing = [PublicKeyCredentialDescriptor(id=key) for key in CREDENTIALS]
        options = generate_registration_options(
            rp_id=rp_id, rp_name="AuthCore test", user_name=request.get("userName", "user"), user_id=secrets.token_bytes(16),
            challenge=challenge, timeout=60000, exclude_credentials=existing,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.PREFERRED),
            supported_pub_key_algs=[COSEAlgorithmIdentifier.ECDSA_SHA_256, COSEAlgorithmIdentifier.RSASSA_PKCS1_v1_5_SHA_256])
        ceremony = secrets.token_hex(8)
        with LOCK:
            CEREMONIES[ceremony] = {"kind": "registration", "challenge": challenge}
        return 200, {"ceremony": ceremony, "options": json.loads(options_to_json(options))}
    if path == "/registration/verify":
        challenge = take(request.get("ceremony"), "registration")
        verified = verify_registration_response(
            credential=request["credential"], expected_challenge=challenge, expected_origin=origin, expected_rp_id=rp_id)
        with LOCK:
            CREDENTIALS[verified.credential_id] = {"public_key": verified.credential_public_key, "sign_count": verified.sign_count}
        return 200, {"verified": True, "credentialId": bytes_to_base64url(verified.credential_id), "fmt": verified.fmt,
                     "signCount": verified.sign_count, "userVerified": verified.user_verified}
    if path == "/authentication/options":
        challenge = secrets.token_bytes(32)
        with LOCK:
            allowed = [PublicKeyCredentialDescriptor(id=key) for key in CREDENTIALS]
        options = generate_authentication_options(
            rp_id=rp_id, challenge=challenge, allow_credentials=allowed, user_verification=UserVerificationRequirement.REQUIRED)
        ceremony = secrets.token_hex(8)
        with LOCK:
            CEREMONIES[ceremony] = {"kind": "authentication", "challenge": challenge}
        return 200, {"ceremony": ceremony, "options": options_to_json(options)}
    if path == "/authentication/verify":
        challenge = take(request.get("ceremony"), "authentication")
        credential = request["credential"]
        if isinstance(credential, str):
            credential = json.loads(credential)
        key = base64url_to_bytes(credential["rawId"])
        with LOCK:
            stored = dict(CREDENTIALS.get(key) or {})
        if not stored:
            raise ValueError("unknown credential")
        verified = verify_authentication_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp_id, expected_origin=origin,
            credential_public_key=stored["public_key"], credential_current_sign_count=stored["sign_count"],
            require_user_verification=True)
        with LOCK:
            CREDENTIALS[key]["sign_count"] = verified.new_sign_count
        return 200, {"verified": True, "newSignCount": verified.new_sign_count}
    return 404, {"error": "no such endpoint"}


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--rp-id", required=True)
    parser.add_argument("--origin", required=True)
    ARGS = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
