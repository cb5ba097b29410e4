"""Instruction counts from a callgrind output file (make ct-count, make ir-check): the one reader
of `callgrind_annotate`'s per-function table."""
import re
import subprocess

ROW = re.compile(r"\s*([\d,]+) \([^)]*\)\s+(.*)$")


def split_costs(out_file, selected_by):
    """(every instruction, those of functions whose annotated name `selected_by` matches): the file's
    program total and the self costs of the functions the pattern selects (`--inclusive=no`)."""
    annotated = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no", out_file],
        check=True, capture_output=True, text=True).stdout
    total = None
    selected = 0
    for line in annotated.splitlines():
        match = ROW.match(line)
        if not match:
            continue
        cost = int(match.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in match.group(2):
            total = cost
        elif selected_by.search(match.group(2)):
            selected += cost
    return total, selected
