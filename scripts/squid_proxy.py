#!/usr/bin/env python3
"""squid (Debian's `squid`) as the proxy peer of the transport's proxy tests, on a free loopback port.

Usage: SQUID_TEST_PASSWORD=... python3 scripts/squid_proxy.py --dir DIR --user USER [--alias NAME ...]

Writes, in DIR, a squid configuration, an htpasswd file (`openssl passwd -apr1`, the password from the
environment, never on a command line) and a hosts file that maps each `--alias NAME` to 127.0.0.1 (squid
resolves those names itself, without DNS: the client sends them in CONNECT and absolute-form requests
because loopback addresses never go through a proxy), starts
`squid -N` on 127.0.0.1:PORT, waits (bounded) until the port accepts connections, and prints one JSON
line: {"port": N, "accessLog": "DIR/access.log", "pid": P}. On SIGTERM it stops squid by PID (SIGTERM,
then SIGKILL after 1 s) and exits.

What squid checks: Basic proxy credentials on every request (a wrong or missing password is its 407);
`CONNECT` only to loopback destinations, plain requests only in absolute form to loopback. Nothing
leaves loopback: the destinations are addresses (no DNS lookup), and its resolver is pointed at
127.0.0.1 all the same. Its access log records each transaction (`CONNECT 127.0.0.1:PORT`).
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def watch_for_death(squid_pid):
    """Forks a reaper that kills squid by PID if this script dies without stopping it (a SIGKILL
    from the test runner). squid started as root changes its user, which clears PR_SET_PDEATHSIG,
    so the reaper (still root) waits on a pipe whose write end only this script holds: end of file
    without the "stopped" byte means this script is gone. Returns the function that says "stopped"."""
    read_end, write_end = os.pipe()
    if os.fork() == 0:
        os.close(write_end)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)  # hold none of the test runner's pipes
        said = os.read(read_end, 1)
        if said != b"s":
            try:
                os.kill(squid_pid, signal.SIGKILL)
            except OSError:
                pass
        os._exit(0)
    os.close(read_end)

    def stopped():
        try:
            os.write(write_end, b"s")
        except OSError:
            pass
    return stopped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--alias", action="append", default=[])
    args = parser.parse_args()
    password = os.environ.get("SQUID_TEST_PASSWORD", "")
    if not password:
        sys.stderr.write("squid_proxy: SQUID_TEST_PASSWORD is not set\n")
        return 2
    # The test runner's threads may hand down a blocked SIGTERM: unblock it, or stop() never runs.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    squid = shutil.which("squid") or "/usr/sbin/squid"
    helper = "/usr/lib/squid/basic_ncsa_auth"
    if not os.access(squid, os.X_OK) or not os.access(helper, os.X_OK):
        sys.stderr.write("squid_proxy: squid is not installed (Debian package squid; `make test` installs it)\n")
        return 1
    directory = os.path.abspath(args.dir)
    os.makedirs(directory, exist_ok=True)
    os.chmod(directory, 0o750)
    hashed = subprocess.run(["openssl", "passwd", "-apr1", "-stdin"], input=password, check=True, capture_output=True,
                            text=True).stdout.strip()
    passwords = os.path.join(directory, "passwd")
    with open(passwords, "w") as f:
        f.write("%s:%s\n" % (args.user, hashed))
    hosts = os.path.join(directory, "hosts")
    with open(hosts, "w") as f:
        f.write("".join("127.0.0.1 %s\n" % name for name in args.alias))
    if os.geteuid() == 0:
        # squid started as root runs as the `proxy` user: the directory (logs) and the password
        # file (its helper) become that user's, readable by nobody else.
        import pwd
        entry = pwd.getpwnam("proxy")
        for path in (directory, passwords, hosts):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    os.chmod(passwords, 0o640)
    port = free_port()
    access_log = os.path.join(directory, "access.log")
    config = os.path.join(directory, "squid.conf")
    with open(config, "w") as f:
        f.write("\n".join([
            "http_port 127.0.0.1:%d" % port,
            "pid_filename %s" % os.path.join(directory, "squid.pid"),
            "access_log stdio:%s" % access_log,
            "cache_log %s" % os.path.join(directory, "cache.log"),
            "cache_store_log none",
            "coredump_dir %s" % directory,
            "cache deny all",
            "cache_mem 8 MB",
            "dns_nameservers 127.0.0.1",
            "hosts_file %s" % hosts,
            "pinger_enable off",
            "netdb_filename none",
            "icp_port 0",
            "htcp_port 0",
            "shutdown_lifetime 0 seconds",
            "visible_hostname authcore-test-proxy",
            "auth_param basic program %s %s" % (helper, passwords),
            "auth_param basic realm authcore-test",
            "auth_param basic children 2",
            "acl authenticated proxy_auth REQUIRED",
            "acl loopback dst 127.0.0.0/8 ::1",
            "acl CONNECT method CONNECT",
            "http_access deny !authenticated",
            "http_access allow CONNECT loopback",
            "http_access allow loopback",
            "http_access deny all",
            "",
        ]))
    # squid's own output goes to a file: an inherited pipe would keep the test runner waiting for
    # its end.
    output = open(os.path.join(directory, "squid.out"), "w")
    process = subprocess.Popen([squid, "-N", "-f", config], stdin=subprocess.DEVNULL, stdout=output, stderr=output)
    done = watch_for_death(process.pid)

    class Stopped(Exception):
        pass

    def on_signal(*_):
        raise Stopped()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        deadline = time.monotonic() + 20
        while True:
            if process.poll() is not None:
                sys.stderr.write("squid_proxy: squid exited (%s); its log:\n" % process.returncode)
                try:
                    with open(os.path.join(directory, "cache.log")) as log:
                        sys.stderr.write(log.read()[-4000:])
                except OSError:
                    pass
                return 1
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    sys.stderr.write("squid_proxy: squid did not listen within 20 s\n")
                    return 1
                time.sleep(0.1)
        print(json.dumps({"port": port, "accessLog": access_log, "pid": process.pid}), flush=True)
        while process.poll() is None:
            time.sleep(0.2)
        return 0
    except Stopped:
        return 0
    finally:
        # Stopped by PID: SIGTERM, then SIGKILL after 1 s (the handler only raises, so no wait is reentered).
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        done()


if __name__ == "__main__":
    sys.exit(main())
