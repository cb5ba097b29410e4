#!/usr/bin/env python3
"""Creates a Cognito user pool in the default-mode moto server for the integration tests.

Uses boto3 against $AUTHCORE_MOTO_URL (started by scripts/with_peers.py) and prints one JSON object:
{"region", "poolId", "clientId" (no secret), "secretClientId", "clientSecret", "users": {...}}.
Each run makes a fresh pool, so tests can run in any order. Run:
    .venv/bin/python scripts/cognito_moto_setup.py
"""
import json
import os
import sys
import uuid

import boto3


def main():
    endpoint = os.environ.get("AUTHCORE_MOTO_URL")
    if not endpoint:
        print("AUTHCORE_MOTO_URL is not set (run under scripts/with_peers.py)", file=sys.stderr)
        return 2
    client = boto3.client(
        "cognito-idp", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
        aws_secret_access_key="testing")
    pool = client.create_user_pool(PoolName="authcore-%s" % uuid.uuid4().hex[:8])["UserPool"]["Id"]
    flows = ["ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_CUSTOM_AUTH"]
    public = client.create_user_pool_client(UserPoolId=pool, ClientName="public", ExplicitAuthFlows=flows)["UserPoolClient"]
    secret = client.create_user_pool_client(
        UserPoolId=pool, ClientName="confidential", GenerateSecret=True, ExplicitAuthFlows=flows)["UserPoolClient"]
    users = {"alice": "Corr3ct-Horse-Battery!", "bob+é": "An0ther-Pa55word!"}
    for name, password in users.items():
        client.admin_create_user(UserPoolId=pool, Username=name, MessageAction="SUPPRESS")
        client.admin_set_user_password(UserPoolId=pool, Username=name, Password=password, Permanent=True)
    client.admin_create_user(
        UserPoolId=pool, Username="newbie", TemporaryPassword="Temp0rary-Pass!", MessageAction="SUPPRESS",
        UserAttributes=[{"Name": "email", "Value": "newbie@example.com"}])
    print(json.dumps({
        "region": "us-east-1", "poolId": pool, "clientId": public["ClientId"], "secretClientId": secret["ClientId"],
        "clientSecret": secret["ClientSecret"], "users": users, "temporaryUser": "newbie",
        "temporaryPassword": "Temp0rary-Pass!",
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
