"""Start-up and shutdown shared by the project's loopback test servers (stdlib only)."""

import signal
import sys


def serve(server, banner):
    """Writes `banner` to stderr (scripts/with_peers.py reads the port from it), then serves until
    SIGTERM or Ctrl-C. Returns the exit status, 0."""
    sys.stderr.write(banner + "\n")
    sys.stderr.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


def run(main):
    """Runs `main()` as the process, exiting 0 on SIGTERM (how with_peers.py stops a server by PID)."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # A test runner's thread may hand down SIGTERM blocked; then the stop would wait for SIGKILL.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    sys.exit(main())
