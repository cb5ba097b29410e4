"""Writing a generated vector file, or checking that the committed one is up to date (stdlib only)."""

import json
import os
import sys


def write_or_check(path, doc, argv=None):
    """Renders `doc` as the project's vector JSON (indent 1, UTF-8, final newline).

    With --check in `argv` (default: sys.argv[1:]), exits with an error unless `path` holds exactly
    that text, and returns None; otherwise writes it and returns the document as written.
    """
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if "--check" in (sys.argv[1:] if argv is None else argv):
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                raise SystemExit("%s is out of date" % path)
        print("up to date: %s" % path)
        return None
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return json.loads(text)
