#!/usr/bin/env python3
"""Checks that the repository paths the top-level documents name exist.

In README.md, SECURITY.md and ARCHITECTURE.md: every relative Markdown link's target, every `code span`
that names a file or folder under one of the repository's top-level folders (Sources/, Tests/, scripts/,
...), every span that names a Swift file (found from the top, under Sources/AuthCore/ or under Sources/),
and every code span that is one of the files a reader looks for at the top of a repository
(`CODEOWNERS`, `LICENSE`, `CONTRIBUTING.md`, ...). Spans with a placeholder (`<Module>`, `*`, `…`) are not paths to check.
(CHANGELOG.md is history: it names files that have since moved.)

Usage: python3 scripts/check_doc_paths.py [FILE.md ...]   (make test runs it)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTS = ["README.md", "SECURITY.md", "ARCHITECTURE.md"]
# Where a source file named without its folder is looked for (ARCHITECTURE.md's table names files under
# Sources/AuthCore/ unless it names the module).
SOURCE_ROOTS = ("", "Sources/AuthCore/", "Sources/")
# The files a reader looks for at the top of a repository.
REPOSITORY_FILES = {"CODEOWNERS", "LICENSE", "NOTICE", "AUTHORS", "MAINTAINERS", "CONTRIBUTING.md", "ARCHITECTURE.md", "SECURITY.md", "CHANGELOG.md"}
TOP_FOLDERS = ("Sources/", "Tests/", "scripts/", "deploy/", "vectors/", "docs/", "Benchmarks/", "Checks/", "Fuzz/", ".ci/")


def named_paths(text):
    for match in re.finditer(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text):
        target = match.group(1)
        if not re.match(r"^[a-z]+:", target):
            yield match.start(), target
    for match in re.finditer(r"`([^`\n]+)`", text):
        span = match.group(1)
        if any(mark in span for mark in "<>*…$ ") or "{" in span:
            continue
        if span.startswith(TOP_FOLDERS) or span in REPOSITORY_FILES:
            yield match.start(), span.rstrip("/").split(":")[0]
        elif re.fullmatch(r"[\w/]+\.swift", span):
            yield match.start(), span


def apt_package_problems():
    """The README's list of the Debian packages the two commands install is the Makefile's APT_PACKAGES."""
    makefile = open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()
    declared = re.search(r"^APT_PACKAGES := (.+)$", makefile, re.M)
    listed = re.search(r"the Debian\s+packages `([^`]+)`", open(os.path.join(ROOT, "README.md"), encoding="utf-8").read())
    if not declared or not listed:
        return ["README.md or the Makefile no longer names the Debian packages (APT_PACKAGES, 'the Debian packages `...`')"]
    if declared.group(1).split() != listed.group(1).split():
        return ["README.md lists the Debian packages `%s`, the Makefile installs `%s`" % (listed.group(1), declared.group(1))]
    return []


def main(argv):
    missing = [] if argv[1:] else apt_package_problems()
    documents = argv[1:] or [os.path.join(ROOT, name) for name in DOCUMENTS]
    for document in documents:
        text = open(document, encoding="utf-8").read()
        for offset, path in named_paths(text):
            if not any(os.path.exists(os.path.join(ROOT, prefix, path)) for prefix in SOURCE_ROOTS):
                missing.append("%s:%d: %s" % (os.path.relpath(document, ROOT), text.count("\n", 0, offset) + 1, path))
    for line in missing:
        sys.stderr.write("doc-paths: %s\n" % (line if "Debian packages" in line else "names a path that does not exist: " + line))
    if missing:
        return 1
    print("doc-paths: every path %s name exists%s" % (
        " and ".join(os.path.relpath(d, ROOT) for d in documents), "" if argv[1:] else "; README.md lists the Makefile's Debian packages"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
