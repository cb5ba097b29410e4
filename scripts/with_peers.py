#!/usr/bin/env python3
"""Run a command with real local peer servers up, for AuthCore's integration tests.

Usage (from the repo root, after `make` created .venv):
    .venv/bin/python scripts/with_peers.py [--only moto,rclone,oss,vending,aliyun,hostile,ministack] [--keep-logs] [-q]
        -- COMMAND ARGS...

Starts, each on a free 127.0.0.1 port, as a child in its own process group, output to a log file in a
fresh temp dir (kept and printed on failure, removed on success unless --keep-logs):
  moto-signed  .venv/bin/moto_server with INITIAL_NO_AUTH_ACTION_COUNT=3: the three free requests make an
               IAM user (CreateUser, PutUserPolicy Allow * on *, CreateAccessKey); every later request
               must be SigV4-signed with that key. Checked at start-up: GetCallerIdentity signed with the
               key -> 200; with a wrong secret -> 403 SignatureDoesNotMatch; with an unknown key -> 403
               InvalidClientTokenId; unsigned -> refused (moto 5.2.5 routes an unsigned POST
               Action=GetCallerIdentity to S3, whose auth check fails with an HTML 500, not a 403).
  moto         a second moto_server in default mode (no auth checks), for Cognito flows.      [--only moto]
  rclone       .venv/bin/rclone serve s3 --auth-key AKID,SECRET over a temp dir holding bucket folder
               authcore-test (with object hello.txt = "hello from rclone\\n"). Checked at start-up: a
               boto3-presigned PUT and GET round trip, and a tampered presigned GET -> 403.
  oss          scripts/oss_verify_server.py (oss2-verified OSS V1/V4 signatures, bucket authcore-test,
               region cn-hangzhou). Checked at start-up: a V4-signed request accepted, a wrong secret -> 403.
  vending      scripts/token_vending_server.py (OSS STS token-vending endpoint, vends the OSS STS pair).
  aliyun       scripts/aliyun_sts_server.py (Alibaba Cloud STS AssumeRole stand-in: RPC and ACS3 signatures
               recomputed by aliyun-python-sdk-core / alibabacloud-openapi-util, nonce reuse and 15-minute
               Timestamp checks; vends the OSS STS pair). Checked at start-up: an AssumeRole URL signed by
               aliyun-python-sdk-core -> 200; the same with a wrong secret -> 400 SignatureDoesNotMatch; an
               ACS3 request signed by alibabacloud-openapi-util -> 200.
  hostile      scripts/hostile_server.py (redirects, skewed Dates, absurd expirations, huge/endless bodies,
               ...: scenarios listed in its docstring) on 127.0.0.1:PORT_A and, for redirect targets that
               must never be reached, 127.0.0.2:PORT_B (a port checked free on 127.0.0.2). Checked at
               start-up: /redirect-307/ -> 307 to B's /stolen and B caught nothing; then POST /_reset.
  ministack    ministack 1.5.33 from its own venv (.venv-ministack: it pins another botocore) with AUTH=true,
               state and Lambda scratch in the temp dir, IoT/SFTP listeners off; ready when
               /_ministack/health answers 200. It verifies Cognito SRP claims, SECRET_HASH, codes and
               RS256 tokens (../shared/spec/peers.md). Checked at start-up: its JWT signing is real
               (`cryptography` importable in its venv).
Each is polled every 0.1 s until it answers HTTP (at most 30 s, then the start-up fails with its log tail).

Environment given to COMMAND (only for the peers started):
  AUTHCORE_VENV                      absolute path of .venv
  AUTHCORE_PEERS                     comma list of started peers (moto,rclone,oss,vending,hostile)
  AUTHCORE_PEERS_LOG_DIR             the temp dir with the server logs
  AUTHCORE_MOTO_SIGNED_URL           http://127.0.0.1:PORT of moto-signed
  AUTHCORE_MOTO_ACCESS_KEY_ID        its IAM user's access key (moto-generated AKIA..., 20 chars)
  AUTHCORE_MOTO_SECRET_ACCESS_KEY    its secret (40 chars)
  AUTHCORE_MOTO_URL                  http://127.0.0.1:PORT of the default-mode moto
  AUTHCORE_MOTO_REGION               us-east-1
  AUTHCORE_RCLONE_URL                http://127.0.0.1:PORT (path-style S3)
  AUTHCORE_RCLONE_ACCESS_KEY_ID      AKIAIOSFODNN7RCLONE1
  AUTHCORE_RCLONE_SECRET_ACCESS_KEY  40 chars
  AUTHCORE_RCLONE_BUCKET             authcore-test
  AUTHCORE_RCLONE_REGION             us-east-1 (what the start-up check signs with)
  AUTHCORE_RCLONE_SEED_KEY           hello.txt (content "hello from rclone\\n")
  AUTHCORE_OSS_URL                   http://127.0.0.1:PORT (path style: /bucket/key)
  AUTHCORE_OSS_ACCESS_KEY_ID         long-term pair (must be used without a security token)
  AUTHCORE_OSS_ACCESS_KEY_SECRET
  AUTHCORE_OSS_STS_ACCESS_KEY_ID     STS pair (must be used with the security token)
  AUTHCORE_OSS_STS_ACCESS_KEY_SECRET
  AUTHCORE_OSS_SECURITY_TOKEN
  AUTHCORE_OSS_REGION                cn-hangzhou
  AUTHCORE_OSS_BUCKET                authcore-test
  AUTHCORE_VENDING_URL               http://127.0.0.1:PORT (base: append /sts, /sts/short, ...)
  AUTHCORE_ALIYUN_STS_URL            http://127.0.0.1:PORT of the STS stand-in (/_calls, /_reset)
  AUTHCORE_ALIYUN_ACCESS_KEY_ID      the long-term Alibaba Cloud key it accepts
  AUTHCORE_ALIYUN_ACCESS_KEY_SECRET
  AUTHCORE_ALIYUN_ROLE_ARN           the one role it lets callers assume (DurationSeconds 900..3600)
  AUTHCORE_HOSTILE_URL               http://127.0.0.1:PORT_A (address A: append /<scenario>/, /_hits, ...)
  AUTHCORE_HOSTILE_OTHER_URL         http://127.0.0.2:PORT_B (address B: where its redirects point)
  AUTHCORE_MINISTACK_URL             http://127.0.0.1:PORT of ministack
127.0.0.1, 127.0.0.2 and localhost are added to NO_PROXY/no_proxy for COMMAND and for the checks here.

Exit status: COMMAND's (128+N if it died of signal N); 1 if start-up failed (one line "with_peers: ..."
on stderr first); 127 if COMMAND cannot be run; 128+N if with_peers got SIGINT/SIGTERM/SIGHUP (N), after
passing it on to COMMAND. Every server is stopped by PID in all cases: SIGTERM to its process group,
up to 5 s, then SIGKILL. Servers and COMMAND also get SIGTERM if with_peers itself is killed, even by
SIGKILL (PR_SET_PDEATHSIG). COMMAND stays in with_peers' process group, so a terminal's Ctrl-C reaches it.
"""

import base64
import concurrent.futures
import ctypes
import hashlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")

PEER_NAMES = ("moto", "rclone", "oss", "vending", "aliyun", "hostile", "ministack")
READY_TIMEOUT = 30.0
POLL_INTERVAL = 0.1
STOP_GRACE = 5.0

MOTO_REGION = "us-east-1"
MOTO_USER = "authcore-tests"
MOTO_BOOTSTRAP_AK = "AKIAIOSFODNN7EXAMPLE"  # any value: the three free requests are not checked
MOTO_BOOTSTRAP_SK = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

RCLONE_AK = "AKIAIOSFODNN7RCLONE1"
RCLONE_SK = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYRCLONEKEY1"
RCLONE_BUCKET = "authcore-test"
RCLONE_REGION = "us-east-1"
RCLONE_SEED_KEY = "hello.txt"
RCLONE_SEED_BODY = b"hello from rclone\n"

OSS_AK = "LTAI5tAuthCoreTestKey001"
OSS_SK = "AuthCoreOssSecretLocalTest0001"
OSS_STS_AK = "STS.NUgYrLnoC37mZZCNnAbezAuthC"
OSS_STS_SK = "3jJ9XwAuthCoreStsSecretForLocalTests0001abcd"
# realistic length (real tokens are several hundred base64 chars) with '+', '/' and '='
OSS_STS_TOKEN = "CAIS" + base64.b64encode(b"".join(
    hashlib.sha512(b"authcore-sts-token-%d" % i).digest() for i in range(5)))[:-6].decode() + "+/AQ=="
OSS_REGION = "cn-hangzhou"
OSS_BUCKET = "authcore-test"

ALIYUN_AK = "LTAI5tAuthCoreStsCaller01"
ALIYUN_SK = "AuthCoreAliyunCallerSecret/LocalTest+01"
ALIYUN_ROLE_ARN = "acs:ram::1234567890123456:role/authcore-oss-app"

assert len(RCLONE_AK) == 20 and len(RCLONE_SK) == 40
assert all(c in OSS_STS_TOKEN for c in "+/=")


class StartupError(Exception):
    pass


class Signalled(BaseException):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def log(msg):
    sys.stderr.write("with_peers: %s\n" % msg)
    sys.stderr.flush()


# ----------------------------------------------------------------------------------------------
# processes
# ----------------------------------------------------------------------------------------------
try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:
    _libc = None


def _child_setup():
    # Runs in the child between fork and exec: SIGTERM when with_peers dies (even by SIGKILL).
    if _libc is not None:
        _libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG


def free_port(taken, host="127.0.0.1"):
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
        if port not in taken:
            taken.add(port)
            return port
    raise StartupError("could not find a free port")


def tail(path, lines=25):
    try:
        with open(path, "rb") as f:
            data = f.read()[-8000:].decode("utf-8", "replace")
    except OSError:
        return "(no log)"
    return "\n".join(data.splitlines()[-lines:])


def http_request(method, url, body=None, headers=None, timeout=10.0):
    """Plain HTTP on loopback, no proxies. -> (status, headers dict lower-case, body bytes)."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        target = (u.path or "/") + ("?" + u.query if u.query else "")
        conn.request(method, target, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


class Peer:
    def __init__(self, name, make_argv, env, logdir, ready_status=None, ready_path="/", extra_hosts=()):
        self.name = name
        self.make_argv = make_argv  # (port, *extra_ports) -> argv
        self.extra_hosts = extra_hosts  # one more free port is picked on each of these addresses
        self.extra_ports = []
        self.env = env
        self.log_path = os.path.join(logdir, name + ".log")
        self.ready_status = ready_status  # None: any HTTP answer means ready
        self.ready_path = ready_path
        self.make_env = None  # port -> env, for servers told their port through the environment
        self.proc = None
        self.port = None
        self.attempts = 0
        self.started = None
        self.ready_after = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    @property
    def other_url(self):  # the first extra address (hostile's B)
        return "http://%s:%d" % (self.extra_hosts[0], self.extra_ports[0])

    def spawn(self, taken):
        self.port = free_port(taken)
        self.extra_ports = [free_port(taken, h) for h in self.extra_hosts]
        argv = self.make_argv(self.port, *self.extra_ports)
        env = self.make_env(self.port) if self.make_env else self.env
        self.attempts += 1
        self.started = time.monotonic()
        with open(self.log_path, "ab") as logf:
            logf.write(("=== %s attempt %d port %d: %s\n" % (self.name, self.attempts, self.port,
                                                             " ".join(argv))).encode())
            logf.flush()
            self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                         stdout=logf, stderr=subprocess.STDOUT, cwd=ROOT,
                                         start_new_session=True, preexec_fn=_child_setup)

    def probe(self):
        try:
            status, _, _ = http_request("GET", self.url + self.ready_path, timeout=1.0)
        except (OSError, http.client.HTTPException):
            return False
        return self.ready_status is None or status == self.ready_status

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


def wait_ready(peers, taken):
    pending = list(peers)
    while pending:
        for p in list(pending):
            if p.proc.poll() is not None:
                text = tail(p.log_path).lower()
                if "address already in use" in text and p.attempts < 3:
                    p.spawn(taken)
                    continue
                raise StartupError("%s exited with status %s before answering on port %d\n--- %s (tail) ---\n%s"
                                   % (p.name, p.proc.returncode, p.port, p.log_path, tail(p.log_path)))
            if p.probe():
                p.ready_after = time.monotonic() - p.started
                pending.remove(p)
            elif time.monotonic() - p.started > READY_TIMEOUT:
                raise StartupError("%s did not answer on %s within %.0f s\n--- %s (tail) ---\n%s"
                                   % (p.name, p.url + p.ready_path, READY_TIMEOUT, p.log_path, tail(p.log_path)))
        if pending:
            time.sleep(POLL_INTERVAL)


def stop_all(peers):
    """SIGTERM each server's process group (by the leader's PID), wait up to 5 s, then SIGKILL."""
    live = [p for p in peers if p.alive()]
    for p in live:
        try:
            os.killpg(p.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + STOP_GRACE
    for p in live:
        try:
            p.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                p.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                log("could not reap %s (pid %d)" % (p.name, p.proc.pid))


# ----------------------------------------------------------------------------------------------
# start-up set-up and checks (run in threads once the servers answer)
# ----------------------------------------------------------------------------------------------
def check_ministack(python):
    """Without `cryptography` ministack signs its JWTs with random bytes (peers.md): refuse to start."""
    result = subprocess.run([python, "-c", "import cryptography, ministack"], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise StartupError("ministack: its venv lacks cryptography or ministack: %s" % result.stderr.strip()[-300:])
    return True


def preload(only):
    if only & {"moto", "rclone"}:
        import botocore.config  # noqa: F401
        import botocore.session  # noqa: F401
    if "oss" in only:
        import logging
        import warnings
        warnings.filterwarnings("ignore")
        logging.getLogger("oss2").setLevel(logging.CRITICAL)
        import oss2  # noqa: F401


def _boto_session():
    import botocore.session
    return botocore.session.Session()


def _boto_config(**kw):
    from botocore.config import Config
    return Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=30, **kw)


def setup_moto_signed(url):
    """Use the three unauthenticated requests to create an admin IAM user and key; prove signing is on."""
    import botocore.exceptions
    session = _boto_session()
    iam = session.create_client("iam", endpoint_url=url, region_name=MOTO_REGION, config=_boto_config(),
                                aws_access_key_id=MOTO_BOOTSTRAP_AK, aws_secret_access_key=MOTO_BOOTSTRAP_SK)
    try:
        iam.create_user(UserName=MOTO_USER)
        iam.put_user_policy(UserName=MOTO_USER, PolicyName="allow-everything", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName=MOTO_USER)["AccessKey"]
    except botocore.exceptions.ClientError as e:
        raise StartupError("moto-signed: IAM bootstrap failed: %s" % e)
    ak, sk = key["AccessKeyId"], key["SecretAccessKey"]

    def sts(a, s):
        return session.create_client("sts", endpoint_url=url, region_name=MOTO_REGION, config=_boto_config(),
                                     aws_access_key_id=a, aws_secret_access_key=s)
    try:
        who = sts(ak, sk).get_caller_identity()
    except botocore.exceptions.ClientError as e:
        raise StartupError("moto-signed: GetCallerIdentity signed with the new key was refused: %s" % e)
    if not who.get("Arn", "").endswith(":user/" + MOTO_USER):
        raise StartupError("moto-signed: GetCallerIdentity returned %r" % (who.get("Arn"),))
    for label, a, s, want in (("a wrong secret", ak, sk[:-1] + ("A" if sk[-1] != "A" else "B"),
                               "SignatureDoesNotMatch"),
                              ("an unknown key", "AKIAIOSFODNN7UNKNOWN", sk, "InvalidClientTokenId")):
        try:
            sts(a, s).get_caller_identity()
        except botocore.exceptions.ClientError as e:
            status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            code = e.response.get("Error", {}).get("Code")
            if status != 403 or code != want:
                raise StartupError("moto-signed: GetCallerIdentity with %s gave %s %s, expected 403 %s"
                                   % (label, status, code, want))
        else:
            raise StartupError("moto-signed: GetCallerIdentity with %s was ACCEPTED: signature checking is off"
                               % label)
    status, _, _ = http_request("POST", url + "/", body=b"Action=GetCallerIdentity&Version=2011-06-15",
                                headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    if status < 400:
        raise StartupError("moto-signed: an unsigned GetCallerIdentity was accepted (HTTP %d)" % status)
    return ak, sk


def check_rclone(url):
    import botocore.exceptions
    s3 = _boto_session().create_client(
        "s3", endpoint_url=url, region_name=RCLONE_REGION,
        config=_boto_config(signature_version="s3v4", s3={"addressing_style": "path"}),
        aws_access_key_id=RCLONE_AK, aws_secret_access_key=RCLONE_SK)
    key = "authcore startup check+ü.txt"
    body = b"with_peers start-up check\n"
    put = s3.generate_presigned_url("put_object", Params={"Bucket": RCLONE_BUCKET, "Key": key}, ExpiresIn=120)
    status, _, out = http_request("PUT", put, body=body)
    if status != 200:
        raise StartupError("rclone: presigned PUT gave HTTP %d: %r" % (status, out[:300]))
    get = s3.generate_presigned_url("get_object", Params={"Bucket": RCLONE_BUCKET, "Key": key}, ExpiresIn=120)
    status, _, out = http_request("GET", get)
    if status != 200 or out != body:
        raise StartupError("rclone: presigned GET gave HTTP %d: %r" % (status, out[:300]))
    sig = get.rsplit("X-Amz-Signature=", 1)[1]
    bad = get[:-len(sig)] + ("0" if sig[0] != "0" else "1") + sig[1:]
    status, _, out = http_request("GET", bad)
    if status != 403:
        raise StartupError("rclone: a tampered presigned GET gave HTTP %d (expected 403): %r" % (status, out[:300]))
    try:
        s3.delete_object(Bucket=RCLONE_BUCKET, Key=key)
    except botocore.exceptions.ClientError as e:
        raise StartupError("rclone: header-signed DeleteObject failed: %s" % e)


def check_oss(url):
    import logging
    import warnings
    warnings.filterwarnings("ignore")
    logging.getLogger("oss2").setLevel(logging.CRITICAL)
    import oss2
    good = oss2.Bucket(oss2.AuthV4(OSS_AK, OSS_SK), url, OSS_BUCKET, region=OSS_REGION)
    try:
        good.get_object("with_peers-no-such-key")
    except oss2.exceptions.NoSuchKey:
        pass  # signature accepted, object missing: as intended
    except oss2.exceptions.OssError as e:
        raise StartupError("oss: a correctly signed V4 request was refused: %s %s" % (e.status, e.code))
    bad = oss2.Bucket(oss2.AuthV4(OSS_AK, OSS_SK[:-1] + "X"), url, OSS_BUCKET, region=OSS_REGION)
    try:
        bad.get_object("with_peers-no-such-key")
    except oss2.exceptions.OssError as e:
        if e.status != 403 or e.code != "SignatureDoesNotMatch":
            raise StartupError("oss: a wrong secret gave %s %s, expected 403 SignatureDoesNotMatch"
                               % (e.status, e.code))
    else:
        raise StartupError("oss: a request signed with a wrong secret was accepted")


def check_vending(url):
    status, _, body = http_request("GET", url + "/sts")
    try:
        doc = json.loads(body)
    except ValueError:
        doc = {}
    if status != 200 or doc.get("AccessKeyId") != OSS_STS_AK:
        raise StartupError("vending: GET /sts gave HTTP %d %r" % (status, body[:200]))


def check_aliyun(url):
    import datetime
    import uuid
    from aliyunsdkcore.auth.composer import rpc_signature_composer as rpc
    import alibabacloud_openapi_util.client as openapi_util
    params = {"Action": "AssumeRole", "Version": "2015-04-01", "RoleArn": ALIYUN_ROLE_ARN,
              "RoleSessionName": "with-peers", "DurationSeconds": "900"}
    path, _ = rpc.get_signed_url(dict(params), ALIYUN_AK, ALIYUN_SK, "JSON", "GET", {})
    status, _, body = http_request("GET", url + path)
    if status != 200 or json.loads(body).get("Credentials", {}).get("AccessKeyId") != OSS_STS_AK:
        raise StartupError("aliyun: an AssumeRole signed by aliyun-python-sdk-core gave HTTP %d %r" % (status, body[:200]))
    path, _ = rpc.get_signed_url(dict(params), ALIYUN_AK, ALIYUN_SK[:-1] + "X", "JSON", "GET", {})
    status, _, body = http_request("GET", url + path)
    if status != 400 or json.loads(body).get("Code") != "SignatureDoesNotMatch":
        raise StartupError("aliyun: a wrong secret gave HTTP %d %r, expected 400 SignatureDoesNotMatch" % (status, body[:200]))

    class Request:
        pass
    form = urllib.parse.urlencode({k: v for k, v in params.items() if k not in ("Action", "Version")}).encode()
    req = Request()
    req.method, req.pathname, req.query = "POST", "/", {}
    req.headers = {"host": urllib.parse.urlsplit(url).netloc, "x-acs-action": "AssumeRole", "x-acs-version": "2015-04-01",
                   "x-acs-date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "x-acs-signature-nonce": uuid.uuid4().hex, "content-type": "application/x-www-form-urlencoded",
                   "x-acs-content-sha256": hashlib.sha256(form).hexdigest()}
    headers = dict(req.headers)
    headers["Authorization"] = openapi_util.Client.get_authorization(
        req, "ACS3-HMAC-SHA256", headers["x-acs-content-sha256"], ALIYUN_AK, ALIYUN_SK)
    status, _, body = http_request("POST", url + "/", body=form, headers=headers)
    if status != 200:
        raise StartupError("aliyun: an ACS3 AssumeRole signed by alibabacloud-openapi-util gave HTTP %d %r" % (status, body[:200]))
    http_request("POST", url + "/_reset")


def check_hostile(url, other_url):
    status, headers, _ = http_request("GET", url + "/redirect-307/")
    if status != 307 or headers.get("location") != other_url + "/stolen":
        raise StartupError("hostile: /redirect-307/ gave HTTP %d Location %r" % (status, headers.get("location")))
    status, _, body = http_request("GET", url + "/_hits")
    if status != 200 or json.loads(body).get("count") != 0:
        raise StartupError("hostile: /_hits gave HTTP %d %r" % (status, body[:200]))
    http_request("POST", url + "/_reset")


# ----------------------------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------------------------
def parse_args(argv):
    only, keep, quiet, command = set(PEER_NAMES), False, False, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            command = argv[i + 1:]
            break
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if a == "--only" or a.startswith("--only="):
            if a == "--only":
                i += 1
                if i >= len(argv):
                    raise SystemExit("with_peers: --only needs a value")
                value = argv[i]
            else:
                value = a.split("=", 1)[1]
            only = {v.strip() for v in value.split(",") if v.strip()}
            unknown = only - set(PEER_NAMES)
            if unknown or not only:
                raise SystemExit("with_peers: --only takes a comma list of %s" % ",".join(PEER_NAMES))
        elif a == "--keep-logs":
            keep = True
        elif a in ("-q", "--quiet"):
            quiet = True
        elif a.startswith("-"):
            raise SystemExit("with_peers: unknown option %s (usage: with_peers.py [--only %s] [--keep-logs] "
                             "[-q] -- COMMAND ARGS...)" % (a, ",".join(PEER_NAMES)))
        else:
            command = argv[i:]
            break
        i += 1
    if not command:
        raise SystemExit("with_peers: no COMMAND (usage: with_peers.py [--only ...] -- COMMAND ARGS...)")
    return only, keep, quiet, command


def main(argv):
    t0 = time.monotonic()
    only, keep, quiet, command = parse_args(argv)
    venv = os.path.abspath(os.environ.get("AUTHCORE_VENV") or os.path.join(ROOT, ".venv"))
    vbin = os.path.join(venv, "bin")
    ministack_venv = os.path.abspath(os.environ.get("AUTHCORE_MINISTACK_VENV") or os.path.join(ROOT, ".venv-ministack"))
    ministack_bin = os.path.join(ministack_venv, "bin")

    def on_signal(signum, _frame):
        raise Signalled(signum)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)

    no_proxy = ",".join(x for x in [os.environ.get("NO_PROXY") or os.environ.get("no_proxy"),
                                    "127.0.0.1", "127.0.0.2", "localhost"] if x)
    command_env = dict(os.environ, NO_PROXY=no_proxy, no_proxy=no_proxy)
    # the tests reach only loopback: a machine's proxy is not theirs (the proxy tests start squid)
    for k in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        command_env.pop(k, None)
    # our own process (boto3 checks) and the servers: no AWS profile/config files, no proxies
    for k in list(os.environ):
        if k.startswith("AWS_") and k != "AWS_CA_BUNDLE":
            del os.environ[k]
    os.environ.update(NO_PROXY=no_proxy, no_proxy=no_proxy, AWS_CONFIG_FILE=os.devnull,
                      AWS_SHARED_CREDENTIALS_FILE=os.devnull, AWS_EC2_METADATA_DISABLED="true")
    base_env = {k: v for k, v in os.environ.items()
                if not k.startswith("RCLONE_") and k != "INITIAL_NO_AUTH_ACTION_COUNT"}
    base_env["PYTHONUNBUFFERED"] = "1"

    missing = [p for p in (
        ([os.path.join(vbin, "moto_server")] if "moto" in only else []) +
        ([os.path.join(vbin, "rclone")] if "rclone" in only else []) +
        ([os.path.join(vbin, "python")] if only & {"oss", "vending", "aliyun", "hostile"} else []) +
        ([os.path.join(ministack_bin, "ministack")] if "ministack" in only else [])) if not os.access(p, os.X_OK)]
    if missing:
        log("start-up failed: missing %s (run `make venv` from the repo root first)" % ", ".join(missing))
        return 1

    logdir = tempfile.mkdtemp(prefix="authcore-peers-")
    peers = []
    failed = True
    try:
        try:
            if "moto" in only:
                peers.append(Peer("moto-signed", lambda port: [os.path.join(vbin, "moto_server"), "-H", "127.0.0.1",
                                                               "-p", str(port)],
                                  dict(base_env, INITIAL_NO_AUTH_ACTION_COUNT="3"), logdir,
                                  ready_status=200, ready_path="/moto-api/"))
                peers.append(Peer("moto", lambda port: [os.path.join(vbin, "moto_server"), "-H", "127.0.0.1",
                                                        "-p", str(port)],
                                  dict(base_env), logdir, ready_status=200, ready_path="/moto-api/"))
            if "rclone" in only:
                data = os.path.join(logdir, "rclone-data")
                os.makedirs(os.path.join(data, RCLONE_BUCKET))
                with open(os.path.join(data, RCLONE_BUCKET, RCLONE_SEED_KEY), "wb") as f:
                    f.write(RCLONE_SEED_BODY)
                conf = os.path.join(logdir, "rclone.conf")
                open(conf, "w").close()
                peers.append(Peer("rclone", lambda port: [
                    os.path.join(vbin, "rclone"), "serve", "s3", "--auth-key", "%s,%s" % (RCLONE_AK, RCLONE_SK),
                    "--addr", "127.0.0.1:%d" % port, "--config", conf,
                    "--cache-dir", os.path.join(logdir, "rclone-cache"), "--log-level", "INFO", data],
                    dict(base_env, RCLONE_CONFIG=conf), logdir))
            if "oss" in only:
                peers.append(Peer("oss", lambda port: [
                    os.path.join(vbin, "python"), os.path.join(SCRIPTS, "oss_verify_server.py"), "--port", str(port),
                    "--ak", OSS_AK, "--sk", OSS_SK, "--sts-ak", OSS_STS_AK, "--sts-sk", OSS_STS_SK,
                    "--sts-token", OSS_STS_TOKEN, "--region", OSS_REGION, "--bucket", OSS_BUCKET],
                    dict(base_env), logdir))
            if "vending" in only:
                peers.append(Peer("vending", lambda port: [
                    os.path.join(vbin, "python"), os.path.join(SCRIPTS, "token_vending_server.py"), "--port",
                    str(port), "--ak", OSS_STS_AK, "--sk", OSS_STS_SK, "--token", OSS_STS_TOKEN],
                    dict(base_env), logdir))
            if "aliyun" in only:
                peers.append(Peer("aliyun", lambda port: [
                    os.path.join(vbin, "python"), os.path.join(SCRIPTS, "aliyun_sts_server.py"), "--port", str(port),
                    "--ak", ALIYUN_AK, "--sk", ALIYUN_SK, "--role-arn", ALIYUN_ROLE_ARN, "--sts-ak", OSS_STS_AK,
                    "--sts-sk", OSS_STS_SK, "--sts-token", OSS_STS_TOKEN],
                    dict(base_env), logdir))
            if "hostile" in only:
                peers.append(Peer("hostile", lambda port, port_b: [
                    os.path.join(vbin, "python"), os.path.join(SCRIPTS, "hostile_server.py"), "--port-a", str(port),
                    "--port-b", str(port_b)],
                    dict(base_env), logdir, ready_status=200, ready_path="/_health", extra_hosts=("127.0.0.2",)))
            if "ministack" in only:
                state = os.path.join(logdir, "ministack-state")
                os.makedirs(state)
                peers.append(Peer("ministack", lambda port: [os.path.join(ministack_bin, "ministack")],
                                  None, logdir, ready_status=200, ready_path="/_ministack/health"))
                peers[-1].make_env = lambda port, state=state: dict(
                    base_env, GATEWAY_PORT=str(port), BIND_HOST="127.0.0.1", STATE_DIR=state, TMPDIR=state,
                    MINISTACK_HOST="localhost", IOT_MTLS_ENABLED="0", SFTP_ENABLED="0", AUTH="true")

            taken = set()
            for p in peers:
                p.spawn(taken)
            preload(only)  # overlaps the client-library imports with the servers' start-up
            wait_ready(peers, taken)
            t_ready = time.monotonic()
            by = {p.name: p for p in peers}

            checks = {}
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=4)
            try:
                if "moto" in only:
                    checks["moto"] = pool.submit(setup_moto_signed, by["moto-signed"].url)
                if "rclone" in only:
                    checks["rclone"] = pool.submit(check_rclone, by["rclone"].url)
                if "oss" in only:
                    checks["oss"] = pool.submit(check_oss, by["oss"].url)
                if "vending" in only:
                    checks["vending"] = pool.submit(check_vending, by["vending"].url)
                if "aliyun" in only:
                    checks["aliyun"] = pool.submit(check_aliyun, by["aliyun"].url)
                if "ministack" in only:
                    checks["ministack"] = pool.submit(check_ministack, os.path.join(ministack_bin, "python"))
                if "hostile" in only:
                    checks["hostile"] = pool.submit(check_hostile, by["hostile"].url, by["hostile"].other_url)
                results = {}
                for name, fut in checks.items():
                    try:
                        results[name] = fut.result(timeout=60)
                    except StartupError:
                        raise
                    except concurrent.futures.TimeoutError:
                        raise StartupError("%s: start-up check timed out" % name)
                    except Exception as e:
                        raise StartupError("%s: start-up check failed: %s: %s" % (name, type(e).__name__, e))
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
            for p in peers:
                if not p.alive():
                    raise StartupError("%s exited during the start-up checks\n--- %s (tail) ---\n%s"
                                       % (p.name, p.log_path, tail(p.log_path)))
        except (StartupError, OSError) as e:
            first, _, rest = str(e).partition("\n")
            log("start-up failed: " + first)
            if rest:
                sys.stderr.write(rest + "\n")
            log("logs kept in " + logdir)
            keep = True
            return 1

        env = dict(command_env, AUTHCORE_VENV=venv, AUTHCORE_PEERS=",".join(n for n in PEER_NAMES if n in only),
                   AUTHCORE_PEERS_LOG_DIR=logdir)
        if "moto" in only:
            ak, sk = results["moto"]
            env.update(AUTHCORE_MOTO_SIGNED_URL=by["moto-signed"].url, AUTHCORE_MOTO_ACCESS_KEY_ID=ak,
                       AUTHCORE_MOTO_SECRET_ACCESS_KEY=sk, AUTHCORE_MOTO_URL=by["moto"].url,
                       AUTHCORE_MOTO_REGION=MOTO_REGION)
        if "rclone" in only:
            env.update(AUTHCORE_RCLONE_URL=by["rclone"].url, AUTHCORE_RCLONE_ACCESS_KEY_ID=RCLONE_AK,
                       AUTHCORE_RCLONE_SECRET_ACCESS_KEY=RCLONE_SK, AUTHCORE_RCLONE_BUCKET=RCLONE_BUCKET,
                       AUTHCORE_RCLONE_REGION=RCLONE_REGION, AUTHCORE_RCLONE_SEED_KEY=RCLONE_SEED_KEY)
        if "oss" in only:
            env.update(AUTHCORE_OSS_URL=by["oss"].url, AUTHCORE_OSS_ACCESS_KEY_ID=OSS_AK,
                       AUTHCORE_OSS_ACCESS_KEY_SECRET=OSS_SK, AUTHCORE_OSS_STS_ACCESS_KEY_ID=OSS_STS_AK,
                       AUTHCORE_OSS_STS_ACCESS_KEY_SECRET=OSS_STS_SK, AUTHCORE_OSS_SECURITY_TOKEN=OSS_STS_TOKEN,
                       AUTHCORE_OSS_REGION=OSS_REGION, AUTHCORE_OSS_BUCKET=OSS_BUCKET)
        if "vending" in only:
            env.update(AUTHCORE_VENDING_URL=by["vending"].url)
        if "aliyun" in only:
            env.update(AUTHCORE_ALIYUN_STS_URL=by["aliyun"].url, AUTHCORE_ALIYUN_ACCESS_KEY_ID=ALIYUN_AK,
                       AUTHCORE_ALIYUN_ACCESS_KEY_SECRET=ALIYUN_SK, AUTHCORE_ALIYUN_ROLE_ARN=ALIYUN_ROLE_ARN)
        if "hostile" in only:
            env.update(AUTHCORE_HOSTILE_URL=by["hostile"].url, AUTHCORE_HOSTILE_OTHER_URL=by["hostile"].other_url)
        if "ministack" in only:
            env.update(AUTHCORE_MINISTACK_URL=by["ministack"].url)
        if not quiet:
            log("ready in %.2f s (servers answered %.2f s, checks %.2f s): %s; logs %s" % (
                time.monotonic() - t0, t_ready - t0, time.monotonic() - t_ready,
                ", ".join("%s %s (%.2f s)" % (p.name, p.url, p.ready_after) for p in peers), logdir))

        try:
            proc = subprocess.Popen(command, env=env, preexec_fn=_child_setup)
        except OSError as e:
            log("cannot run %s: %s" % (command[0], e))
            failed = False  # the servers were fine: no logs to keep
            return 127
        try:
            rc = proc.wait()
        except Signalled as sig:
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(s, signal.SIG_IGN)
            log("got signal %d, passing it on to COMMAND (pid %d) and stopping the servers" % (sig.signum, proc.pid))
            try:
                proc.send_signal(sig.signum)
                proc.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            except ProcessLookupError:
                pass
            keep = True
            return 128 + sig.signum
        failed = rc != 0
        return rc if rc >= 0 else 128 - rc
    except Signalled as sig:
        log("got signal %d during start-up; stopping the servers" % sig.signum)
        keep = True
        return 128 + sig.signum
    finally:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        stop_all(peers)
        if failed and not keep:
            log("COMMAND failed; server logs kept in " + logdir)
        elif not keep:
            shutil.rmtree(logdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
