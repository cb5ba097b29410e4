#!/usr/bin/env python3
"""Runs `authcore srp verifier` on a pseudo-terminal (stdlib pty) and reports, as one JSON line, what
the no-echo prompt did: whether echo was off while the password was typed, whether the password came
back on the terminal, whether a verifier was printed; and, for a Ctrl-C at the prompt, the signal the
process ended with and whether the terminal's echo was back on afterwards.

Usage: python3 scripts/pty_prompt_check.py AUTHCORE_BINARY
"""
import json
import os
import pty
import sys
import termios
import time


def session(binary, keys):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(binary, [binary, "srp", "verifier", "--group", "2048", "--hash", "sha256", "--username", "alice"])
    out, deadline = b"", time.time() + 20
    while b"Password" not in out and time.time() < deadline:
        out += os.read(fd, 1024)
    echo_while_typing = bool(termios.tcgetattr(fd)[3] & termios.ECHO)
    os.write(fd, keys)
    time.sleep(0.2)
    echo_after = bool(termios.tcgetattr(fd)[3] & termios.ECHO)
    try:
        while True:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            out += chunk
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    return out, echo_while_typing, echo_after, status


def main():
    binary = sys.argv[1]
    out, typing, _, status = session(binary, b"pty-secret-pw\n")
    _, interrupted_typing, after_interrupt, interrupted = session(binary, b"\x03")
    print(json.dumps({
        "prompted": b"Password for alice: " in out, "echoWhileTyping": typing, "passwordEchoed": b"pty-secret-pw" in out,
        "verifierPrinted": b"verifier_hex" in out, "exitStatus": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1,
        "interruptSignal": os.WTERMSIG(interrupted) if os.WIFSIGNALED(interrupted) else 0,
        "echoWhileTypingBeforeInterrupt": interrupted_typing, "echoAfterInterrupt": after_interrupt,
    }))


if __name__ == "__main__":
    main()
