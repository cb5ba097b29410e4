#!/usr/bin/env python3
"""Instruction-count equality across secret classes (make ct-count).

For each secret operation of `authcore-ctcheck count`, runs every class once under callgrind
(`--collect-atstart=no`: only the operation itself is counted, between its client-request toggles)
and compares the `Ir` outside libc (see LIBC below). Counts are deterministic for a given binary and input sizes, whatever
else the machine does, so equality is a gate that does not depend on wall-clock timing. Exit 1 when
any operation's classes differ.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_costs import split_costs  # noqa: E402

# glibc's memset/memcpy/malloc take a number of instructions that depends on pointer alignment and
# heap state, which differ between the per-class processes; their sizes here are public (fixed
# widths), and `make ctgrind` separately reports any size or address that depends on a secret. So the
# count is every instruction outside libc: AuthCore, GMP, OpenSSL and the Swift runtime.
LIBC = re.compile(r"\[/[^\]]*/(libc\.so\.6|ld-linux-x86-64\.so\.2)\]$")

BINARY = sys.argv[1] if len(sys.argv) > 1 else ".build/ctgrind/release/authcore-ctcheck"
OUT = ".build/ct-count"


# What the gate must cover: the binary may list more, never less (a name dropped from its table would
# otherwise shrink the gate silently). Its classes come from the binary, at least two each.
REQUIRED = [
    "comb", "client-premaster", "server-premaster", "proof-compare", "login-begin", "login-finish",
    "session-key", "session-key@1029", "cognito-claim-key",
    "secret-power-portable52", "secret-power-portable52@2047", "comb-portable52",
    "secret-power-mont64", "secret-power-mont64@2047", "comb-mont64",
    *(f"{operation}@{bits}" for bits in (1029, 1535, 2047)
      for operation in ("verifier", "client-premaster", "server-premaster", "login-begin", "login-finish")),
    "control-mpz_powm", "control-login-begin", "control-verifier-biguint@2047",
]


def operations():
    """The operations and their classes, as the binary defines them (`count --list`): the names that
    start with `control` are the controls, deliberately variable-time, whose classes must differ."""
    listed = subprocess.run([BINARY, "count", "--list"], check=True, capture_output=True, text=True).stdout
    table = {line.split()[0]: line.split()[1:] for line in listed.splitlines() if line.strip()}
    missing = [name for name in REQUIRED if name not in table]
    narrow = [name for name, classes in table.items() if len(classes) < 2]
    if missing or narrow:
        raise SystemExit(f"ct-count: the binary lacks {missing} or lists fewer than two classes for {narrow}")
    checked = {name: classes for name, classes in table.items() if not name.startswith("control")}
    controls = {name: classes for name, classes in table.items() if name.startswith("control")}
    return checked, controls


def instructions(operation, secret_class):
    out_file = os.path.join(OUT, f"{operation}-{secret_class}.out")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out_file}",
         BINARY, "count", operation, secret_class],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total, in_libc = split_costs(out_file, LIBC)
    counted = (total or 0) - in_libc
    if total is None or counted == 0:
        raise SystemExit(f"ct-count: no costs in {out_file}")
    return counted


def main():
    os.makedirs(OUT, exist_ok=True)
    failed = False
    checked, controls = operations()
    for operation, classes in checked.items():
        counts = {c: instructions(operation, c) for c in classes}
        equal = len(set(counts.values())) == 1 and min(counts.values()) > 0
        failed |= not equal
        shown = ", ".join(f"{c} {n}" for c, n in counts.items())
        print(f"ct-count {operation}: {'equal' if equal else 'DIFFERENT'} Ir ({shown})")
    for operation, classes in controls.items():
        counts = {c: instructions(operation, c) for c in classes}
        caught = len(set(counts.values())) == len(classes)
        failed |= not caught
        shown = ", ".join(f"{c} {n}" for c, n in counts.items())
        print(f"ct-count {operation} (a control: must differ): {'different' if caught else 'EQUAL'} Ir ({shown})")
    print("ct-count: FAILED" if failed else "ct-count: every operation takes the same instructions for every class")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
