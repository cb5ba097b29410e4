#!/usr/bin/env python3
"""make zeroize-check: freed heap blocks that still hold a secret, per scenario, with gates.

Checks/zeroize/probe.c (LD_PRELOAD) counts blocks given back to malloc while they contain a marker
secret. Markers reach the probe reversed and hex-encoded (AUTHCORE_ZEROIZE_MARKERS), so the copy of
the environment never matches; the secrets reach the programs the way real users give them (stdin
or the documented environment variables). Each scenario has a gate:

- 0 where the library or the CLI owns every byte (stdin passwords, the engine's x, the password
  of USER_PASSWORD_AUTH sent in a request body, a secret key parsed out of a server's answer and
  printed);
- at most 1 for a value read from the environment (the CLI copies it into wiping storage,
  overwrites the variable in place and unsets it; the C library's own environment block is
  outside its reach);
- a written budget for values that must become a Swift String (a session token is a header value).

The control preloads Checks/zeroize/no_wipe.c too, which turns OPENSSL_cleanse (every AuthCore wipe
goes through it) into a no-op: the same scenarios must then find the marker, or the check proves
nothing. Exit 1 when a gate fails or the control finds nothing.
"""
import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading

BUILD = ".build/zeroize"
CLI = ".build/debug/authcore"
ENGINE = ".build/debug/authcore-ctcheck"
PASSWORD = "ZeroizeMarker-Passw0rd-4b1d9e"
SECRET_KEY = "ZeroizeMarkerSecretKey0123456789abcdefGH"
TOKEN = "ZeroizeMarkerSessionTokenFQoGZXIvYXdz0123456789"
SESSION_TOKEN_BUDGET = 1  # measured: the one Swift String the token lives in (Credentials); the CLI writes header lines piece by piece


class AnsweringServer(http.server.ThreadingHTTPServer):
    """A loopback stand-in with fixed answers: GetCredentialsForIdentity gives SECRET_KEY as the
    secret key (the client must parse it out of the answer), InitiateAuth refuses the password it
    was sent (the client has sent it whole by then). Checks nothing: it feeds the scenarios."""

    daemon_threads = True

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("X-Amz-Target", "").endswith(".InitiateAuth"):
                status, answer = 400, {"__type": "NotAuthorizedException", "message": "Incorrect username or password."}
            else:
                status, answer = 200, {
                    "IdentityId": "us-east-1:11111111-2222-3333-4444-555555555555",
                    "Credentials": {"AccessKeyId": "ASIAZEROIZECHECK0001", "SecretKey": SECRET_KEY,
                                    "SessionToken": "session-token", "Expiration": 1900000000}}
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/x-amz-json-1.1")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *arguments):
            pass

    def __init__(self):
        super().__init__(("127.0.0.1", 0), self.Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/"
        threading.Thread(target=self.serve_forever, daemon=True).start()


def compile_probes():
    os.makedirs(BUILD, exist_ok=True)
    for name in ("probe", "no_wipe"):
        subprocess.run(
            ["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", f"{BUILD}/lib{name}.so",
             f"Checks/zeroize/{name}.c", "-ldl"], check=True)


def markers(named):
    return ",".join(f"{name}={value[::-1].hex()}" for name, value in named.items())


def run(command, named, stdin=None, extra_env=None, control=False):
    report = os.path.abspath(f"{BUILD}/report.txt")
    if os.path.exists(report):
        os.remove(report)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "COGNITO_", "AUTHCORE_ZEROIZE"))}
    env.update(extra_env or {})
    preload = [os.path.abspath(f"{BUILD}/libprobe.so")]
    if control:
        preload.append(os.path.abspath(f"{BUILD}/libno_wipe.so"))
    env.update({
        "AUTHCORE_ZEROIZE_MARKERS": markers(named),
        "AUTHCORE_ZEROIZE_REPORT": report,
        "LD_PRELOAD": ":".join(preload),
        "SWIFT_BACKTRACE": "enable=no",
    })
    result = subprocess.run(command, input=stdin, env=env, capture_output=True, timeout=300)
    counts = {}
    with open(report) as handle:
        for line in handle:
            fields = line.split()
            if fields[0] == "zeroize":
                counts[fields[2]] = counts.get(fields[2], 0) + int(fields[3].split("=")[1])
            elif fields[0] == "zeroize-error":
                raise SystemExit(f"zeroize-check: probe error: {line.strip()}")
    return result.returncode, counts


def x_rfc5054(salt, username, password):
    inner = hashlib.sha256(username + b":" + password).digest()
    return hashlib.sha256(salt + inner).digest()


def scenarios(server):
    password = PASSWORD.encode()
    key = SECRET_KEY.encode()
    token = TOKEN.encode()
    closed = "http://127.0.0.1:9/"  # discard port: nothing listens, the call fails after the password is read
    cognito = [CLI, "cognito", "sign-in", "--region", "us-east-1", "--user-pool-id", "us-east-1_AbCdEf123",
               "--client-id", "client", "--username", "alice", "--endpoint", closed]
    sigv4 = [CLI, "sigv4", "sign", "https://s3.amazonaws.com/b/k", "--region", "us-east-1", "--service", "s3"]
    x = x_rfc5054(b"zeroize-check-salt", b"alice@example.com", password)
    return [
        ("engine: SRP verifier + handshake, Cognito claims (S[0] >= 0x80 and < 0x80) + server check, device verifier",
         [ENGINE, "zeroize"], {"password": password, "x": x}, password + b"\n", {}, {"password": 0, "x": 0}),
        ("cli srp verifier, password on stdin", [CLI, "srp", "verifier", "--group", "2048", "--hash", "sha256", "--username", "alice"],
         {"password": password}, password + b"\n", {}, {"password": 0}),
        ("cli cognito sign-in, password on stdin", cognito, {"password": password}, password + b"\n", {}, {"password": 0}),
        ("cli cognito sign-in, COGNITO_PASSWORD", cognito, {"password": password}, None, {"COGNITO_PASSWORD": PASSWORD},
         {"password": 1}),
        ("cli cognito sign-in --flow user-password (USER_PASSWORD_AUTH: the password sent whole), password on stdin",
         cognito[:-1] + [server.url, "--flow", "user-password"], {"password": password}, password + b"\n", {}, {"password": 0}),
        ("cli identity credentials: a secret key returned by a server",
         [CLI, "identity", "credentials", "--region", "us-east-1", "--identity-id", "us-east-1:11111111-2222-3333-4444-555555555555",
          "--endpoint", server.url], {"key": key}, None, {}, {"key": 0}),
        ("cli identity credentials --format credential-process: the returned key parsed and printed",
         [CLI, "identity", "credentials", "--region", "us-east-1", "--identity-id", "us-east-1:11111111-2222-3333-4444-555555555555",
          "--endpoint", server.url, "--format", "credential-process"], {"key": key}, None, {}, {"key": 0}),
        ("cli sigv4 sign, AWS_SECRET_ACCESS_KEY", sigv4, {"key": key}, None,
         {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": SECRET_KEY}, {"key": 1}),
        ("cli sigv4 sign, AWS_SESSION_TOKEN (a header value: Swift Strings, budget)", sigv4, {"token": token}, None,
         {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_SESSION_TOKEN": TOKEN},
         {"token": SESSION_TOKEN_BUDGET}),
        ("cli sigv4 sign --no-s3, AWS_SESSION_TOKEN (standard rules)", sigv4 + ["--no-s3"], {"token": token}, None,
         {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_SESSION_TOKEN": TOKEN},
         {"token": SESSION_TOKEN_BUDGET}),
    ]


def main():
    compile_probes()
    failed = False
    control_hits = 0
    server = AnsweringServer()
    for title, command, named, stdin, extra_env, gates in scenarios(server):
        _, counts = run(command, named, stdin, extra_env)
        verdicts = []
        for name, gate in gates.items():
            ok = counts.get(name, 0) <= gate
            failed |= not ok
            verdicts.append(f"{name} {counts.get(name, 0)} (gate <= {gate}){'' if ok else ' FAILED'}")
        _, control = run(command, named, stdin, extra_env, control=True)
        budgeted = "budget" in title
        if not budgeted and sum(control.values()) == 0:
            print(f"zeroize-check {title}: the control found nothing with wiping disabled")
            failed = True
        control_hits += sum(control.values())
        print(f"zeroize-check {title}: {', '.join(verdicts)}; control without wiping: "
              + ", ".join(f"{n} {control.get(n, 0)}" for n in gates))
    if control_hits == 0:
        print("zeroize-check: the control found no marker with wiping disabled: the check proves nothing")
        failed = True
    print("zeroize-check: FAILED" if failed else "zeroize-check: every gate holds; the control finds the markers")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
