#!/usr/bin/env python3
"""The browser of the hosted-UI tests: does what a user does on ministack's hosted UI, with Python's
own HTTP client and HTML parser (independent of AuthCore).

  hosted_ui_browser.py AUTHORIZE_URL USERNAME PASSWORD [follow]

GETs the authorize URL, reads the sign-in form's hidden fields (client_id, redirect_uri, scope, state,
response_type, code_challenge, code_challenge_method, nonce) from the page, POSTs them to the form's
action (/login) with the username and password, and prints one JSON line:
  {"status": <status of /login>, "location": <its Location header or null>, "hidden": {…the form's fields},
   "error": <the page's error text or null>}
With "follow", it then GETs the Location (the app's loopback redirect listener) and adds
"redirectStatus" and "redirectBody". Only loopback addresses are contacted.
"""
import html.parser
import http.client
import json
import sys
import urllib.parse


class FormReader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.action = None
        self.hidden = {}
        self.error = None
        self._in_error = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = attrs.get("action")
        if tag == "input" and attrs.get("type") == "hidden":
            self.hidden[attrs.get("name")] = attrs.get("value") or ""
        if tag == "div" and attrs.get("class") == "error":
            self._in_error = True

    def handle_data(self, data):
        if self._in_error:
            self.error = (self.error or "") + data

    def handle_endtag(self, tag):
        if tag == "div":
            self._in_error = False


def request(method, url, body=None, headers=None):
    parts = urllib.parse.urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("refusing a non-loopback address: %s" % parts.hostname)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    target = parts.path + ("?" + parts.query if parts.query else "")
    connection.request(method, target, body=body, headers=headers or {})
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer.status, answer.getheader("Location"), data


def main():
    authorize, username, password = sys.argv[1:4]
    follow = len(sys.argv) > 4 and sys.argv[4] == "follow"
    status, _, page = request("GET", authorize)
    if status != 200:
        print(json.dumps({"status": status, "location": None, "hidden": {}, "error": page.decode("utf-8", "replace")}))
        return 0
    form = FormReader()
    form.feed(page.decode("utf-8"))
    fields = dict(form.hidden)
    fields.update({"username": username, "password": password})
    action = urllib.parse.urljoin(authorize, form.action or "/login")
    status, location, page = request(
        "POST", action, body=urllib.parse.urlencode(fields), headers={"Content-Type": "application/x-www-form-urlencoded"})
    result = {"status": status, "location": location, "hidden": form.hidden, "error": None}
    if status == 200:
        again = FormReader()
        again.feed(page.decode("utf-8"))
        result["error"] = (again.error or "").strip() or None
    if follow and location:
        redirect_status, _, body = request("GET", location)
        result["redirectStatus"] = redirect_status
        result["redirectBody"] = body.decode("utf-8", "replace")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
