#!/usr/bin/env python3
"""The byte-parsing lint (make test): protocol bytes are read as bytes, and identities are not keyed
by String (design.md, "Network policy").

In the code that reads wire formats, paths, headers and stored records, it fails on:
  - splitting or searching a String by Characters: `.split(separator: "…")`, `.split(whereSeparator:`,
    `firstIndex(of: "…")`, `lastIndex(of: "…")`, `components(separatedBy:`, `range(of: "…")`;
  - comparing through Unicode case mapping: `lowercased() ==`, `== x.lowercased()`, `!=` likewise,
    `uppercased()` likewise, and `[x.lowercased()]` as a key;
  - String-keyed collections (`[String: …]`, `Set<String>`, `Dictionary<String, …>`) declared or
    created: identities (usernames, key ids, header names, device keys, hosts) are keyed by their
    bytes, since String equality merges canonically equivalent spellings.
A line that has to do one of these says why in a marked comment, on the line or in the comment lines
directly above it (a declaration's documentation included; for an element of a list written one per
line, above the list's opening line or between its elements):
    // bytes-lint: <why this is not wire data or an identity>
Comments are not read (a `//` inside a string literal is not one).

Exit 0 with a count of lines checked and exceptions honoured; exit 1 listing every hit as
path:line: rule: code.
"""
import os
import re
import sys

ROOTS = [
    "Sources/AuthCore/Signing",
    "Sources/AuthCore/OSS",
    "Sources/AuthCoreHTTP",
    "Sources/AuthCoreClients/HTTP",
    "Sources/AuthCoreClients/Signing",
    "Sources/AuthCoreClients/AppServer",
    "Sources/AuthCoreServer",
    "Sources/AuthCoreCLI",
]
MARKER = "bytes-lint:"

RULES = [
    ("Character split", re.compile(r"\.split\(\s*separator:\s*\"|\.split\(\s*whereSeparator:")),
    ("Character search", re.compile(
        r"\b(first|last)Index\(\s*of:\s*\"|\.range\(\s*of:\s*\"|\.contains\(\s*\"[^\"]\"\s*\)"
        r"|\b(first|last)Index\(\s*where:\s*\{\s*\$0\s*==\s*\"|split\(\s*separator:\s*Character\(")),
    ("components(separatedBy:)", re.compile(r"components\(\s*separatedBy:")),
    ("Unicode case comparison", re.compile(
        r"(lower|upper)cased\(\)\s*[!=]=|[!=]=\s*[\w.\[\]()\"]+\.(lower|upper)cased\(\)|\[[\w.]+\.(lower|upper)cased\(\)\]"
        r"|switch\s+[\w.]+\.(lower|upper)cased\(\)|\.contains\([\w.]+\.(lower|upper)cased\(\)\)")),
    ("String-keyed collection", re.compile(r"(:|->|=)\s*(\[String\s*:|Set<String>|Dictionary<String\s*,)")),
]


def code_of(line):
    """The line without its comment: `//` outside a string literal starts one."""
    if line.lstrip().startswith("///"):
        return ""
    quoted = False
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\\" and quoted:
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", index):
            return line[:index]
        index += 1
    return line


def marked_comments_above(lines, index):
    """The comment lines directly above line `index` (0-based). A line inside a parenthesised list
    written one element per line (`swift format` breaks long parameter and argument lists that way)
    also has the comments above the list's opening line, and those between its elements."""
    comments = []
    above = index - 1
    in_list = True
    while above >= 0:
        text = lines[above].strip()
        code = code_of(lines[above]).strip()
        if text.startswith("//"):
            comments.append(lines[above])
        elif in_list and code.endswith(","):
            pass
        elif in_list and code.endswith("("):
            in_list = False
        else:
            break
        above -= 1
    return comments


def lines_of(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().split("\n")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    hits, checked, honoured = [], 0, 0
    for base in ROOTS:
        for directory, _, files in os.walk(os.path.join(root, base)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(directory, name)
                lines = lines_of(path)
                for number, line in enumerate(lines, start=1):
                    code = code_of(line)
                    if not code.strip():
                        continue
                    checked += 1
                    for rule, pattern in RULES:
                        if not pattern.search(code):
                            continue
                        comments = marked_comments_above(lines, number - 1)
                        if MARKER in line or any(MARKER in comment for comment in comments):
                            honoured += 1
                            continue
                        hits.append(f"{os.path.relpath(path, root)}:{number}: {rule}: {line.strip()}")
    if hits:
        print("byte-parsing lint: protocol bytes must be read as bytes, identities keyed by bytes (or say why: // bytes-lint: …)")
        print("\n".join(hits))
        print(f"byte-parsing lint: {len(hits)} hits")
        return 1
    print(f"byte-parsing lint: {checked} lines in {len(ROOTS)} trees, no hits ({honoured} marked exceptions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
