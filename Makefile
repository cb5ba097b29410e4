# AuthCore: the two commands.
#
#   make bench   release build, every vector, benchmarks + comparison table (writes bench-results.json)
#   make test    debug build, every test, every vector
#
# Each first installs what is missing: the Debian packages (as root, no sudo) and the project's
# Python venv of pinned reference implementations and local peers (scripts/requirements.txt).

SHELL := /bin/bash
SWIFT ?= swift
PYTHON ?= python3
VENV := .venv
APT_PACKAGES := pkg-config libgmp-dev libssl-dev python3-venv locales

.PHONY: test bench tsan deps system-deps venv build build-release vectors clean

# The tests run under scripts/with_peers.py, which starts the local peers (moto, rclone serve s3,
# the oss2-verifying OSS endpoint, the token-vending server) on loopback and stops them by PID.
test: deps build
	$(VENV)/bin/python scripts/with_peers.py -- $(SWIFT) test
	.build/debug/authcore vectors vectors

bench: deps build-release
	.build/release/authcore vectors vectors
	AUTHCORE_VENV=$(VENV) .build/release/authcore-bench --json bench-results.json

# The whole suite under ThreadSanitizer (not part of `make test`: about 2 minutes more from scratch).
tsan: deps
	$(SWIFT) build --sanitize=thread --scratch-path .build/tsan
	$(VENV)/bin/python scripts/with_peers.py -- $(SWIFT) test --sanitize=thread --scratch-path .build/tsan

deps: system-deps venv

system-deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "==> installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

venv: $(VENV)/.requirements-installed

$(VENV)/.requirements-installed: scripts/requirements.txt
	@if [ ! -x $(VENV)/bin/python ]; then echo "==> creating $(VENV)"; $(PYTHON) -m venv $(VENV); fi
	$(VENV)/bin/pip install -q --disable-pip-version-check -r scripts/requirements.txt
	@touch $@

build:
	$(SWIFT) build --build-tests

build-release:
	$(SWIFT) build -c release

vectors: build
	.build/debug/authcore vectors vectors

clean:
	rm -rf .build bench-results.json
