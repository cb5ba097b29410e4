#!/usr/bin/env python3
"""botocore's credential resolution as an oracle for AuthCore's AWS default chain.

One JSON object per line on stdin, one answer per line on stdout:
    {"op": "resolve", "env": {...}, "profile": null | "name", "callerIdentity": bool}
The process environment is replaced by "env" (so HOME, AWS_CONFIG_FILE, AWS_PROFILE, ... are exactly the
case's), then botocore.session.Session(profile=profile).get_credentials() runs and the credentials are
frozen (which makes deferred sources — AssumeRole, web identity, expiring process output — do their work).
Answer: {"accessKeyId", "sessionToken", "method"} (method is botocore's source name, Credentials.method),
plus "arn" from STS GetCallerIdentity signed with them when callerIdentity is true (at AWS_ENDPOINT_URL_STS);
or {"error": exception class name, "message": first 300 characters}; {"error": "NoCredentials"} when
get_credentials() returns None.
Oracle: botocore (version in scripts/requirements.txt), with its own configparser-based file reading.
"""

import json
import os
import sys

import botocore
import botocore.session


def resolve(request):
    os.environ.clear()
    os.environ.update(request.get("env") or {})
    try:
        session = botocore.session.Session(profile=request.get("profile"))
        credentials = session.get_credentials()
        if credentials is None:
            return {"error": "NoCredentials", "message": "get_credentials() returned None"}
        frozen = credentials.get_frozen_credentials()
        answer = {"accessKeyId": frozen.access_key, "sessionToken": frozen.token, "method": credentials.method}
        if request.get("callerIdentity"):
            client = session.create_client(
                "sts", region_name="us-east-1", endpoint_url=os.environ["AWS_ENDPOINT_URL_STS"],
                aws_access_key_id=frozen.access_key, aws_secret_access_key=frozen.secret_key,
                aws_session_token=frozen.token)
            answer["arn"] = client.get_caller_identity()["Arn"]
        return answer
    except Exception as error:  # the class name is the answer
        return {"error": type(error).__name__, "message": str(error)[:300]}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") == "quit":
            print(json.dumps({"ok": True}), flush=True)
            return 0
        if request.get("op") == "version":
            print(json.dumps({"botocore": botocore.__version__}), flush=True)
            continue
        print(json.dumps(resolve(request)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
