#!/usr/bin/env bash
# Checks deploy/systemd/authcore.service with `systemd-analyze verify` (part of `make test` when the
# tool is present): the unit, with its /usr/local/bin/authcore replaced by the binary given, must
# verify with no message at all (an unknown key is only a warning to systemd, an error here). A
# control copy with a misspelt key must be reported, so the check is known to be able to fail.
set -euo pipefail
binary="$(realpath "${1:?usage: check_systemd_unit.sh PATH-TO-authcore}")"
unit="$(dirname "$0")/../deploy/systemd/authcore.service"
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "systemd unit: systemd-analyze is not installed; the unit was not verified"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed "s#/usr/local/bin/authcore#${binary}#g" "$unit" > "$work/authcore.service"
if ! output="$(systemd-analyze verify --man=no "$work/authcore.service" 2>&1)" || [ -n "$output" ]; then
  echo "$output"
  echo "systemd unit: deploy/systemd/authcore.service does not verify"
  exit 1
fi
sed 's/^Restart=/Restrat=/' "$work/authcore.service" > "$work/control.service"
control="$(systemd-analyze verify --man=no "$work/control.service" 2>&1 || true)"
if [[ "$control" != *"Unknown key"* ]]; then
  echo "systemd unit: the control (a misspelt key) was not reported: $control"
  exit 1
fi
echo "systemd unit: deploy/systemd/authcore.service verifies (systemd-analyze $(systemd-analyze --version | head -n 1 | cut -d' ' -f2)); the control is reported"
