#!/usr/bin/env python3
"""Converts the AWS Common Runtime's SigV4a signing test suite (raw, one folder per case) into
vectors/sigv4a-aws-suite.json (kind `sigv4a`, vectors.md).

Each case becomes two: `<case>-header` (the Authorization header) and `<case>-query` (a presigned
URL), with the suite's canonical request, string to sign and derived public key as expectations and
`verifies: true` (ECDSA signatures are randomized: the runner checks that its signature verifies
under the public key, never compares it). The conversion only re-shapes the data:
- `request.txt` is read as the suite's signer reads it: the request line, `Name:value` header lines
  (a line starting with whitespace continues the previous value; the line break becomes one space),
  an empty line, the body;
- `context.json`: `normalize` -> `normalize_path`, `omit_session_token`, `sign_body` ->
  `content_sha256_header` (header mode only: a presigned URL signs no content header),
  `expiration_in_seconds` -> `expires`, the ISO timestamp -> `YYYYMMDDTHHMMSSZ`, `region` ->
  `region_set`.

Usage: python3 scripts/convert_sigv4a_suite.py SUITE_DIR vectors/sigv4a-aws-suite.json
"""
import json
import os
import sys

SOURCE = ("AWS SigV4a signing test suite, awslabs/aws-c-auth tests/aws-signing-test-suite/v4a/* at commit "
          "495329c2433034bd8fd53fc6ba9e0202d3fac876 (Apache-2.0), header and query variants, converted by "
          "scripts/convert_sigv4a_suite.py. Converted data only: multi-line (obs-fold) header values are unfolded "
          "with the line break replaced by one space; sign_body is content_sha256_header in header mode; the cases "
          "the suite ships without expectations (get-vanilla-query-order-key, get-vanilla-query-order-value) are left out.")


def read_request(path):
    text = open(path, encoding="utf-8").read()
    head, _, body = text.partition("\n\n")
    lines = head.split("\n")
    request_line = lines[0]
    method, _, rest = request_line.partition(" ")
    uri = rest.rsplit(" HTTP/", 1)[0]
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        if line[0] in " \t" and headers:
            headers[-1][1] += " " + line
            continue
        name, _, value = line.partition(":")
        headers.append([name, value])
    return {"method": method, "uri": uri, "headers": headers, "body": body}


def amz_date(iso):
    return iso.replace("-", "").replace(":", "")


def read(folder, name):
    return open(os.path.join(folder, name), encoding="utf-8").read()


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("Usage:")[1], file=sys.stderr)
        return 2
    suite, target = argv[1], argv[2]
    cases, skipped = [], []
    for case in sorted(os.listdir(suite)):
        folder = os.path.join(suite, case)
        if not os.path.isdir(folder):
            continue
        if not os.path.exists(os.path.join(folder, "public-key.json")):
            skipped.append(case)  # the suite ships some cases with their request only: nothing to check
            continue
        context = json.load(open(os.path.join(folder, "context.json")))
        key = json.loads(read(folder, "public-key.json"))
        credentials = {"access_key_id": context["credentials"]["access_key_id"],
                       "secret_access_key": context["credentials"]["secret_access_key"]}
        if "token" in context["credentials"]:
            credentials["session_token"] = context["credentials"]["token"]
        for mode in ("header", "query"):
            options = {}
            if mode == "query":
                options["mode"] = "query"
                options["expires"] = context["expiration_in_seconds"]
            if not context.get("normalize", True):
                options["normalize_path"] = False
            if context.get("omit_session_token"):
                options["omit_session_token"] = True
            if context.get("sign_body") and mode == "header":
                options["content_sha256_header"] = True
            entry = {
                "name": "%s-%s" % (case, mode),
                "request": read_request(os.path.join(folder, "request.txt")),
                "credentials": credentials,
                "region_set": context["region"],
                "service": context["service"],
                "timestamp": amz_date(context["timestamp"]),
            }
            if options:
                entry["options"] = options
            entry["expect"] = {
                "canonical_request": read(folder, mode + "-canonical-request.txt"),
                "string_to_sign": read(folder, mode + "-string-to-sign.txt"),
                "public_key": {"x": key["X"], "y": key["Y"]},
                "verifies": True,
            }
            cases.append(entry)
    with open(target, "w", encoding="utf-8") as f:
        json.dump({"kind": "sigv4a", "source": SOURCE, "cases": cases}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("convert_sigv4a_suite: %d cases from %s into %s; without expectations, left out: %s" % (
        len(cases), suite, target, ", ".join(skipped) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
