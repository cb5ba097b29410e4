#!/usr/bin/env python3
"""Cognito helpers for the integration tests against ministack (AUTH=true), $AUTHCORE_MINISTACK_URL
(started by scripts/with_peers.py). Run with the project venv:

  cognito_ministack.py setup               a fresh pool (below); prints one JSON object
  cognito_ministack.py totp SECRET [STEPS] the RFC 6238 code (HMAC-SHA1, 30 s, 6 digits; Python's hmac,
                                           an oracle independent of AuthCore) for now + STEPS time steps
  cognito_ministack.py code ADDRESS        the last verification code ministack "sent" to ADDRESS
                                           (GET /_ministack/ses/messages)
  cognito_ministack.py identity-setup      two small user pools and an identity pool that trusts both (below)
  cognito_ministack.py s3-setup            an IAM user (Allow * on *) with an access key, and a fresh bucket
  cognito_ministack.py chain-setup         an IAM user with a key, roles to assume (one asking for an external
                                           id, one for web identity) and a web identity token
                                           created with that key: {"accessKeyId", "secretAccessKey",
                                           "bucket", "region", "endpoint"}. With AUTH=true ministack checks
                                           every signature made with this key (root keys are never checked),
                                           every aws-chunked chunk signature included (peers.md).
  cognito_ministack.py hosted-ui-client POOL_ID CALLBACK_URL [secret]
                                           an app client of POOL_ID for the hosted UI: the code grant,
                                           scopes openid/email/profile/aws.cognito.signin.user.admin, CALLBACK_URL its one callback URL
                                           (ministack matches it exactly, port included) and sign-out URL;
                                           with "secret", a client secret. Prints {"clientId", "clientSecret"}
  cognito_ministack.py verify-jwt POOL_ID TOKEN
                                           checks TOKEN's RS256 signature with PyJWT against the pool's
                                           /<poolId>/.well-known/jwks.json; prints the claims

setup prints:

  {"region", "poolId", "endpoint",
   "clientId"          public client: USER_SRP_AUTH, USER_PASSWORD_AUTH, CUSTOM_AUTH, refresh,
   "secretClientId", "clientSecret"   the same flows, with a client secret (SECRET_HASH checked),
   "srpOnlyClientId"   a client that allows only USER_SRP_AUTH and refresh (flow enablement checked),
   "shortClientId"     tokens valid for 60 s (TokenValidityUnits in seconds): a session must refresh,
   "users": {name: password},  "temporaryUser", "temporaryPassword"   (NEW_PASSWORD_REQUIRED),
   "totpUser"          a confirmed user without MFA yet (the test sets TOTP up itself),
   "customAnswer"      the answer the verify trigger accepts}

identity-setup prints:

  {"region", "endpoint",
   "poolId", "clientId"            user pool A (users alice and bob, passwords in "users"; USER_PASSWORD_AUTH),
   "otherPoolId", "otherClientId"  user pool B (no users): registered too, so its key is a known provider,
   "identityPoolId"                unauthenticated identities allowed; CognitoIdentityProviders A and B,
                                   SupportedLoginProviders accounts.google.com, DeveloperProviderName
                                   login.authcore.test; roles for authenticated and unauthenticated}

Each run makes a fresh pool, so tests can run in any order. The pool's custom-auth triggers
(define/create/verify) are Python Lambda functions that ministack runs as local processes:
  define  PASSWORD_VERIFIER first when the client started with SRP (CHALLENGE_NAME=SRP_A), then
          CUSTOM_CHALLENGE until the answer is right (tokens) or three answers were wrong (fail);
  create  asks "what is the secret word?", keeps the expected answer in privateChallengeParameters;
  verify  answerCorrect = (answer == expected).
Admin calls use ministack's root key (peers.md: admin set-up may use it); the tests themselves call
only the unsigned user-pool operations, which ministack checks (SRP claim, SECRET_HASH, codes).
"""
import base64
import hashlib
import hmac
import io
import json
import os
import re
import struct
import sys
import time
import urllib.request
import uuid
import zipfile

import boto3

REGION = "us-east-1"
CUSTOM_ANSWER = "open sesame"

DEFINE = r'''
def handler(event, context):
    session = event["request"].get("session", [])
    if session and session[0].get("challengeName") == "SRP_A":
        if len(session) == 1:
            event["response"].update(challengeName="PASSWORD_VERIFIER", issueTokens=False, failAuthentication=False)
            return event
        if len(session) == 2 and not session[1].get("challengeResult"):
            event["response"].update(issueTokens=False, failAuthentication=True)
            return event
        custom = session[2:]
    else:
        custom = session
    if custom and custom[-1].get("challengeName") == "CUSTOM_CHALLENGE" and custom[-1].get("challengeResult"):
        event["response"].update(issueTokens=True, failAuthentication=False)
    elif len(custom) >= 3:
        event["response"].update(issueTokens=False, failAuthentication=True)
    else:
        event["response"].update(challengeName="CUSTOM_CHALLENGE", issueTokens=False, failAuthentication=False)
    return event
'''

CREATE = r'''
def handler(event, context):
    if event["request"].get("challengeName") == "CUSTOM_CHALLENGE":
        event["response"]["publicChallengeParameters"] = {"question": "what is the secret word?"}
        event["response"]["privateChallengeParameters"] = {"answer": %r}
        event["response"]["challengeMetadata"] = "SECRET_WORD"
    return event
''' % CUSTOM_ANSWER

VERIFY = r'''
def handler(event, context):
    expected = event["request"].get("privateChallengeParameters", {}).get("answer")
    event["response"]["answerCorrect"] = event["request"].get("challengeAnswer") == expected
    return event
'''


def zipped(source):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("index.py", source)
    return buffer.getvalue()


def totp(secret, steps=0):
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int(time.time()) // 30 + steps
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1000000)


def last_code(endpoint, address):
    with urllib.request.urlopen(endpoint.rstrip("/") + "/_ministack/ses/messages", timeout=10) as answer:
        messages = json.load(answer)["messages"]
    codes = [re.search(r"(\d{6})", m.get("BodyText", "")).group(1)
             for account in messages.values() for m in account if address in m.get("To", [])
             and re.search(r"\d{6}", m.get("BodyText", ""))]
    if not codes:
        raise SystemExit("no code was sent to %s" % address)
    return codes[-1]


def verify_jwt(endpoint, pool_id, token):
    import jwt
    with urllib.request.urlopen("%s/%s/.well-known/jwks.json" % (endpoint.rstrip("/"), pool_id), timeout=10) as answer:
        keys = json.load(answer)["keys"]
    kid = jwt.get_unverified_header(token)["kid"]
    key = jwt.PyJWK(next(k for k in keys if k["kid"] == kid))
    return jwt.decode(token, key=key, algorithms=["RS256"], options={"verify_aud": False, "verify_exp": False})


def hosted_ui_client(endpoint, pool_id, callback, with_secret):
    session = boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)
    idp = session.client("cognito-idp", endpoint_url=endpoint)
    client = idp.create_user_pool_client(
        UserPoolId=pool_id, ClientName="hosted-ui-%s" % uuid.uuid4().hex[:8], GenerateSecret=with_secret,
        ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"], AllowedOAuthFlows=["code"],
        AllowedOAuthFlowsUserPoolClient=True, AllowedOAuthScopes=["openid", "email", "profile", "aws.cognito.signin.user.admin"],
        CallbackURLs=[callback], LogoutURLs=[callback], SupportedIdentityProviders=["COGNITO"])["UserPoolClient"]
    return {"clientId": client["ClientId"], "clientSecret": client.get("ClientSecret")}


def identity_setup(endpoint):
    session = boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)
    idp = session.client("cognito-idp", endpoint_url=endpoint)
    iam = session.client("iam", endpoint_url=endpoint)
    tag = uuid.uuid4().hex[:8]
    flows = ["ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]
    pools = []
    for name in ("a", "b"):
        pool = idp.create_user_pool(PoolName="authcore-id-%s-%s" % (name, tag))["UserPool"]["Id"]
        client = idp.create_user_pool_client(UserPoolId=pool, ClientName="app", ExplicitAuthFlows=flows)["UserPoolClient"]["ClientId"]
        pools.append((pool, client))
    users = {"alice": "Corr3ct-Horse-Battery!", "bob": "An0ther-Pa55word!"}
    for name, password in users.items():
        idp.admin_create_user(UserPoolId=pools[0][0], Username=name, MessageAction="SUPPRESS")
        idp.admin_set_user_password(UserPoolId=pools[0][0], Username=name, Password=password, Permanent=True)
    identity = session.client("cognito-identity", endpoint_url=endpoint)
    identity_pool = identity.create_identity_pool(
        IdentityPoolName="authcore_%s" % tag, AllowUnauthenticatedIdentities=True,
        SupportedLoginProviders={"accounts.google.com": "google-client-id"}, DeveloperProviderName="login.authcore.test",
        CognitoIdentityProviders=[{"ProviderName": "cognito-idp.%s.amazonaws.com/%s" % (REGION, pool), "ClientId": client}
                                  for pool, client in pools])["IdentityPoolId"]
    trust = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": "cognito-identity.amazonaws.com"},
        "Action": "sts:AssumeRoleWithWebIdentity"}]})
    roles = {kind: iam.create_role(RoleName="authcore-%s-%s" % (kind, tag), AssumeRolePolicyDocument=trust)["Role"]["Arn"]
             for kind in ("authenticated", "unauthenticated")}
    identity.set_identity_pool_roles(IdentityPoolId=identity_pool, Roles=roles)
    return {"region": REGION, "endpoint": endpoint.rstrip("/") + "/", "poolId": pools[0][0], "clientId": pools[0][1],
            "otherPoolId": pools[1][0], "otherClientId": pools[1][1], "identityPoolId": identity_pool, "users": users}


def iam_user(endpoint, prefix):
    """An IAM user allowed everything, with an access key: (iam client, tag, user name, key)."""
    root = boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)
    iam = root.client("iam", endpoint_url=endpoint)
    tag = uuid.uuid4().hex[:8]
    user = "%s-%s" % (prefix, tag)
    iam.create_user(UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="all", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    return iam, tag, user, iam.create_access_key(UserName=user)["AccessKey"]


def s3_setup(endpoint):
    iam, tag, user, key = iam_user(endpoint, "authcore-s3")
    session = boto3.Session(aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"],
                            region_name=REGION)
    bucket = "authcore-stream-%s" % tag
    session.client("s3", endpoint_url=endpoint).create_bucket(Bucket=bucket)
    return {"accessKeyId": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"], "bucket": bucket,
            "region": REGION, "endpoint": endpoint.rstrip("/")}


def chain_setup(endpoint):
    """An IAM user (Allow * on *) with a key; a role it may assume; a role that asks for an external id; a
    role for web identity tokens issued by issuer.authcore.test (ministack names that provider
    arn:aws:iam::ACCOUNT:oidc-provider/issuer.authcore.test) and such a token (unsigned: ministack reads
    the issuer, it does not check a signature)."""
    iam, tag, user, key = iam_user(endpoint, "authcore-chain")
    account = iam.get_user(UserName=user)["User"]["Arn"].split(":")[4]

    def role(name, statement):
        document = json.dumps({"Version": "2012-10-17", "Statement": [statement]})
        return iam.create_role(RoleName="authcore-%s-%s" % (name, tag), AssumeRolePolicyDocument=document)["Role"]["Arn"]

    assume = role("assume", {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"})
    external = role("external", {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole",
                                 "Condition": {"StringEquals": {"sts:ExternalId": "authcore-external-id"}}})
    provider = "arn:aws:iam::%s:oidc-provider/issuer.authcore.test" % account
    web = role("web", {"Effect": "Allow", "Principal": {"Federated": provider}, "Action": "sts:AssumeRoleWithWebIdentity"})

    def b64(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    token = b64({"alg": "none", "typ": "JWT"}) + "." + b64({
        "iss": "https://issuer.authcore.test", "sub": "system:serviceaccount:default:app", "aud": "sts.amazonaws.com",
        "exp": int(time.time()) + 3600}) + "."
    return {"accessKeyId": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"], "assumeRoleArn": assume,
            "externalRoleArn": external, "webRoleArn": web, "webToken": token, "region": REGION,
            "endpoint": endpoint.rstrip("/")}


def main():
    endpoint = os.environ.get("AUTHCORE_MINISTACK_URL")
    if not endpoint:
        print("AUTHCORE_MINISTACK_URL is not set (run under scripts/with_peers.py)", file=sys.stderr)
        return 2
    command = sys.argv[1] if len(sys.argv) > 1 else "setup"
    if command == "totp":
        print(totp(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0))
        return 0
    if command == "code":
        print(last_code(endpoint, sys.argv[2]))
        return 0
    if command == "verify-jwt":
        print(json.dumps(verify_jwt(endpoint, sys.argv[2], sys.argv[3])))
        return 0
    if command == "hosted-ui-client":
        print(json.dumps(hosted_ui_client(endpoint, sys.argv[2], sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == "secret")))
        return 0
    if command == "identity-setup":
        print(json.dumps(identity_setup(endpoint), ensure_ascii=False))
        return 0
    if command == "s3-setup":
        print(json.dumps(s3_setup(endpoint)))
        return 0
    if command == "chain-setup":
        print(json.dumps(chain_setup(endpoint)))
        return 0
    if command != "setup":
        print("unknown command %s" % command, file=sys.stderr)
        return 2
    session = boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)
    idp = session.client("cognito-idp", endpoint_url=endpoint)
    lam = session.client("lambda", endpoint_url=endpoint)
    tag = uuid.uuid4().hex[:8]
    role = session.client("iam", endpoint_url=endpoint).create_role(
        RoleName="authcore-lambda-%s" % tag, AssumeRolePolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"},
                                                    "Action": "sts:AssumeRole"}]}))["Role"]["Arn"]
    arns = {}
    for name, source in (("DefineAuthChallenge", DEFINE), ("CreateAuthChallenge", CREATE), ("VerifyAuthChallengeResponse", VERIFY)):
        function = lam.create_function(
            FunctionName="authcore-%s-%s" % (name, tag), Runtime="python3.12", Handler="index.handler",
            Role=role, Code={"ZipFile": zipped(source)})
        arns[name] = function["FunctionArn"]
    pool = idp.create_user_pool(
        PoolName="authcore-%s" % tag, LambdaConfig=arns, MfaConfiguration="OPTIONAL",
        Policies={"PasswordPolicy": {"MinimumLength": 8}}, AutoVerifiedAttributes=["email"],
        UsernameConfiguration={"CaseSensitive": True})["UserPool"]["Id"]
    flows = ["ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_CUSTOM_AUTH"]
    public = idp.create_user_pool_client(UserPoolId=pool, ClientName="public", ExplicitAuthFlows=flows)["UserPoolClient"]
    secret = idp.create_user_pool_client(
        UserPoolId=pool, ClientName="confidential", GenerateSecret=True, ExplicitAuthFlows=flows)["UserPoolClient"]
    srp_only = idp.create_user_pool_client(
        UserPoolId=pool, ClientName="srp-only", ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"])["UserPoolClient"]
    short = idp.create_user_pool_client(
        UserPoolId=pool, ClientName="short-lived", ExplicitAuthFlows=flows,
        TokenValidityUnits={"AccessToken": "seconds", "IdToken": "seconds", "RefreshToken": "days"},
        AccessTokenValidity=60, IdTokenValidity=60, RefreshTokenValidity=1)["UserPoolClient"]
    users = {"alice": "Corr3ct-Horse-Battery!", "bob+é": "An0ther-Pa55word!", "carol": "Th1rd-Pa55word!", "totp": "T0tp-Pa55word!"}
    for name, password in users.items():
        idp.admin_create_user(
            UserPoolId=pool, Username=name, MessageAction="SUPPRESS",
            UserAttributes=[{"Name": "email", "Value": "%s@example.com" % name.split("+")[0]}, {"Name": "email_verified", "Value": "true"}])
        idp.admin_set_user_password(UserPoolId=pool, Username=name, Password=password, Permanent=True)
    idp.admin_create_user(
        UserPoolId=pool, Username="newbie", TemporaryPassword="Temp0rary-Pass!", MessageAction="SUPPRESS",
        UserAttributes=[{"Name": "email", "Value": "newbie@example.com"}])
    print(json.dumps({
        "region": REGION, "poolId": pool, "endpoint": endpoint.rstrip("/") + "/",
        "clientId": public["ClientId"], "secretClientId": secret["ClientId"], "clientSecret": secret["ClientSecret"],
        "srpOnlyClientId": srp_only["ClientId"], "shortClientId": short["ClientId"],
        "users": users, "temporaryUser": "newbie", "temporaryPassword": "Temp0rary-Pass!", "totpUser": "totp",
        "customAnswer": CUSTOM_ANSWER,
    }, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
