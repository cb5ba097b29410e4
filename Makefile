# AuthCore: the two commands.
#
#   make bench   release build, every vector, benchmarks + comparison table (writes bench-results.json)
#   make test    debug build, every test, every vector
#
# Each first installs what is missing: the Debian packages (as root, no sudo) and the project's
# Python venv of pinned reference implementations and local peers (scripts/requirements.txt).

SHELL := /bin/bash
SWIFT ?= swift
# The project's own debug builds treat every warning as an error (Package.swift does not: see there).
WARNINGS_AS_ERRORS := -Xswiftc -warnings-as-errors
PYTHON ?= python3
# Tests reach only loopback: nothing run from here asks the EC2 instance metadata service
# (169.254.169.254) for credentials; a test that wants IMDS points it at a loopback peer.
export AWS_EC2_METADATA_DISABLED := true
VENV := .venv
MINISTACK_VENV := .venv-ministack
APT_PACKAGES := pkg-config libgmp-dev libssl-dev openssl ca-certificates libhiredis-dev redis-server libmicrohttpd-dev python3-venv locales valgrind squid

.PHONY: test test-steps test-unit lint-bytes lint-format format docs alloc-check ir-check bench bench-ab tsan asan fuzz fuzz-build fuzz-replay ctgrind ctgrind-build ctgrind-openssl ct-count dudect zeroize-check stack-scrub-check deps system-deps venv ministack-venv build build-release vectors clean

# The tests run under scripts/with_peers.py, which starts the local peers (moto, rclone serve s3,
# the oss2-verifying OSS endpoint, the token-vending server, ministack) on loopback and stops them by PID.
# The unit suites run first, on their own: a test that waits for a subprocess (every integration
# test does) holds a thread of the cooperative pool, which has one per core, so in one run the
# integration suites starved the unit suites' real-time timers (a 2-core machine, tests 40-70 s late).
# The integration suites run one test at a time for the same reason: one waiting for subprocesses
# starved another's real-time checks (moto's 90-second credentials arrived 60 s late).
# `make test` tees its output to .build/make-test.log and ends with one screen of what ran, each step
# with its count and time (scripts/test_summary.py); its exit status is the steps'.
test:
	@mkdir -p .build; start=$$(date +%s); \
	{ $(MAKE) --no-print-directory test-steps 2>&1; echo $$? > .build/make-test.status; } | tee .build/make-test.log; \
	status=$$(cat .build/make-test.status); \
	python3 scripts/test_summary.py .build/make-test.log $$status $$(( $$(date +%s) - start )); \
	exit $$status

# A step of `make test`: runs $(2), then writes `step-time NAME SECONDS STATUS` and stops on a failure.
step = @echo "==> $(1)"; start=$$(date +%s); ( $(2) ); status=$$?; echo "step-time $(1) $$(( $$(date +%s) - start )) $$status"; exit $$status

test-steps: deps build
	$(call step,byte-lint,$(PYTHON) scripts/check_byte_parsing.py)
	$(call step,format,$(MAKE) --no-print-directory lint-format)
	$(call step,unit,$(SWIFT) test --skip-build --skip 'AuthCoreIntegrationTests\.')
	$(call step,integration,$(VENV)/bin/python scripts/with_peers.py -- $(SWIFT) test --skip-build --no-parallel --filter 'AuthCoreIntegrationTests\.')
	$(call step,vectors,.build/debug/authcore vectors vectors)
	$(call step,systemd-unit,scripts/check_systemd_unit.sh .build/debug/authcore)
	$(call step,docs,$(MAKE) --no-print-directory docs)
	$(call step,doc-blocks,for document in README.md $$(grep -l '^```swift' Sources/*/*.docc/*.md); do \
	  SWIFTC="$$(dirname "$$(command -v $(SWIFT))")/swiftc" $(PYTHON) scripts/check_readme_tour.py $$document || exit 1; done)
	$(call step,doc-paths,$(PYTHON) scripts/check_doc_paths.py)
	$(call step,bench-report,$(VENV)/bin/python scripts/test_bench_report.py --bench .build/debug/authcore-bench)
	$(call step,package-settings,if grep -n 'treatAllWarnings\|unsafeFlags' Package.swift; then \
	  echo "Package.swift: a setting that would also apply to the packages that depend on this one"; exit 1; fi; \
	  $(MAKE) -n --no-print-directory build | grep -q -- '-warnings-as-errors' || { echo "make build: warnings are not errors"; exit 1; }; \
	  echo "package-settings: no warnings-as-errors or unsafe flags in Package.swift; make build treats warnings as errors")
	$(call step,setup-message,out=$$($(MAKE) --no-print-directory system-deps APT_PACKAGES=authcore-no-such-package SETUP_UID=1000 2>&1); code=$$?; \
	  if [ $$code -eq 2 ] && echo "$$out" | grep -q "needs root: authcore-no-such-package"; then \
	    echo "system-deps: without root a missing package is a clear message and exit 2"; \
	  else echo "system-deps: no clear message without root (exit $$code): $$out"; exit 1; fi)
	$(call step,fuzz-replay,$(MAKE) --no-print-directory fuzz-replay)
	$(call step,ctgrind,$(MAKE) --no-print-directory ctgrind)
	$(call step,ct-count,$(MAKE) --no-print-directory ct-count)
	$(call step,dudect,$(MAKE) --no-print-directory dudect DUDECT_MEASUREMENTS=20000)
	$(call step,zeroize-check,$(MAKE) --no-print-directory zeroize-check)
	$(call step,stack-scrub,$(MAKE) --no-print-directory stack-scrub-check)
	$(call step,alloc-check,$(MAKE) --no-print-directory alloc-check)
	$(call step,ir-check,$(MAKE) --no-print-directory ir-check)

# Every test that needs no peer, no venv and no apt (the system's GMP and OpenSSL only): for
# contributors on a machine without Debian's packages or a network (macOS with Homebrew's gmp and
# openssl@3). It skips the suites that talk to local servers or Python reference implementations.
UNIT_SKIPS := --skip 'AuthCoreIntegrationTests\.' --skip 'PysrpInteropTests' --skip 'CognitoSRPTests/.*[Pp]ycognito' \
  --skip 'CognitoTimestampLocaleTests' --skip 'terminalPrompt'
test-unit:
	$(SWIFT) build --build-tests $(WARNINGS_AS_ERRORS)
	$(SWIFT) test --skip-build $(UNIT_SKIPS)
	.build/debug/authcore vectors vectors

# The byte-parsing lint (scripts/check_byte_parsing.py): no Character-level splitting, searching or
# Unicode case comparison in the code that reads wire formats, paths and headers, and no identity keyed
# by String; justified exceptions carry "// bytes-lint: why". Part of `make test` (a second).
lint-bytes:
	@$(PYTHON) scripts/check_byte_parsing.py

# The layout: every Swift file as the toolchain's `swift format` writes it with the checked-in
# .swift-format (NIO and swift-crypto's house style: 120 columns, 4 spaces, one argument per line when
# a call does not fit, ordered imports). `make format` rewrites the files; `lint-format` (in `make
# test`, a few seconds) fails on any file that differs. Lines it cannot break (string literals, URLs)
# may run past 120 columns.
SWIFT_SOURCES := Package.swift Sources Tests Benchmarks Fuzz Checks
lint-format:
	@$(SWIFT) format lint --strict --parallel --recursive $(SWIFT_SOURCES) && \
	  echo "format: $$(find $(SWIFT_SOURCES) -name '*.swift' | wc -l) Swift files as swift format writes them (.swift-format)"
format:
	$(SWIFT) format format --in-place --parallel --recursive $(SWIFT_SOURCES)

# DocC for every public module with the toolchain's docc (no plugin package can be fetched): symbol
# graphs extracted from the debug build, each catalogue (Sources/<Module>/<Module>.docc) converted with
# warnings as errors, so a broken symbol link or an undocumented parameter fails the build. Archives in
# .build/docs/<Module>.doccarchive. Part of `make test` (about 20 s once built).
DOCC ?= docc
DOC_MODULES := AuthCore AuthCoreHTTP AuthCoreClients AuthCoreServer AuthCoreVectors
docs: build
	@set -e; rm -rf .build/symbol-graphs .build/docs; mkdir -p .build/docs; \
	for module in $(DOC_MODULES); do \
	  mkdir -p .build/symbol-graphs/$$module; \
	  $(SWIFT) symbolgraph-extract -module-name $$module -I .build/debug/Modules -I Sources/CAuthCoreGMP -I Sources/CAuthCoreLibCrypto -I Sources/CAuthCoreLibSSL -I Sources/CAuthCoreHiredis -I Sources/CAuthCoreMicroHTTPD \
	    -Xcc -fmodule-map-file=.build/debug/CAuthCoreBigNum.build/module.modulemap -I Sources/CAuthCoreBigNum/include \
	    -target $$(uname -m)-unknown-linux-gnu -minimum-access-level public -output-dir .build/symbol-graphs/$$module; \
	  $(DOCC) convert Sources/$$module/$$module.docc --fallback-display-name $$module --fallback-bundle-identifier org.authcore.$$module \
	    --additional-symbol-graph-dir .build/symbol-graphs/$$module --output-path .build/docs/$$module.doccarchive --warnings-as-errors \
	    > .build/docs-$$module.log 2>&1 || { cat .build/docs-$$module.log; echo "docs: $$module has warnings"; exit 1; }; \
	  echo "docs: $$module: no warnings (.build/docs/$$module.doccarchive)"; \
	done

# Writes bench-results.json (with the Swift version and commit, which the binary cannot know) and its
# two exports (github-action-benchmark, Bencher); a whole run (no --filter or --quick in BENCH_FLAGS)
# also becomes docs/bench/results.json with its pictures (scripts/bench_plot.py, matplotlib from the
# venv) and the README's figure blocks (scripts/readme_figures.py): commit them to keep the run.
# BENCH_FLAGS adds options, e.g. make bench BENCH_FLAGS="--baseline old.json --fail-above 1.25".
bench: deps build-release
	@case " $(BENCH_FLAGS) " in *" --format"*|*" --from"*) \
	  echo "make bench: BENCH_FLAGS takes no --format or --from (it measures and writes the native report, then both exports);"; \
	  echo "  convert a saved run with .build/release/authcore-bench --from FILE --format FORMAT --json OUT"; exit 2;; esac
	.build/release/authcore vectors vectors
	AUTHCORE_VENV=$(VENV) AUTHCORE_SWIFT_VERSION="$$($(SWIFT) --version 2>/dev/null | head -n 1)" \
	  AUTHCORE_COMMIT="$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	  .build/release/authcore-bench --json bench-results.json $(BENCH_FLAGS)
	for format in github-action-benchmark bencher; do \
	  .build/release/authcore-bench --from bench-results.json --format $$format --json bench-results.$$format.json > /dev/null || exit 1; \
	  echo "wrote bench-results.$$format.json"; done
ifeq ($(findstring --filter,$(BENCH_FLAGS))$(findstring --quick,$(BENCH_FLAGS)),)
	mkdir -p docs/bench && cp bench-results.json docs/bench/results.json
	$(VENV)/bin/python scripts/bench_plot.py docs/bench/results.json docs/bench
	$(PYTHON) scripts/readme_figures.py --write --bench .build/release/authcore-bench
else
	@echo "(a partial run: docs/bench and the README's figures are left as they are)"
endif

# The whole suite under ThreadSanitizer, unit suites first as in `make test` (not part of `make test`: about 2 minutes more from scratch).
# The app server's suites run apart, one test at a time: under TSan its SRP handlers are slow
# enough to hold both threads of the cooperative pool while other suites wait on it. The
# stack-residue suite is left to `make test` and `make asan`: under TSan its control (a secret left
# in a local on purpose) is not found in the stack the test provides, so the suite would prove nothing.
tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan --skip 'AuthCoreIntegrationTests\.' --skip 'AuthCoreServerTests\.' \
	  --skip 'StackResidueTests'
	$(SWIFT) test --skip-build --no-parallel --sanitize=thread --scratch-path .build/tsan --filter 'AuthCoreServerTests\.'
	$(VENV)/bin/python scripts/with_peers.py -- $(SWIFT) test --skip-build --no-parallel --sanitize=thread --scratch-path .build/tsan \
	  --filter 'AuthCoreIntegrationTests\.'

# The whole suite under AddressSanitizer (Swift code, and the C shims through -Xcc), with UBSan for
# the C code. Not part of `make test` (a third full build: several minutes). The app-server suites
# run on their own, one test at a time (their per-request time limits are wall-clock). The
# stack-residue tests run without ASan's fake stack (detect_stack_use_after_return=0): with it, a
# frame's address-taken locals live in ASan's side allocation, not on the thread's stack the test
# searches, and the test's control (a secret left in a local on purpose) is rightly not found.
ASAN_RUN := ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build --sanitize=address \
  --scratch-path .build/asan -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
	$(ASAN_RUN) --skip 'AuthCoreIntegrationTests\.' --skip 'AuthCoreServerTests\.' --skip 'StackResidueTests'
	$(ASAN_RUN) --no-parallel --filter 'AuthCoreServerTests\.'
	ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0 SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build \
	  --sanitize=address --scratch-path .build/asan -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
	  --filter 'StackResidueTests'
	ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no $(VENV)/bin/python scripts/with_peers.py -- \
	  $(SWIFT) test --skip-build --no-parallel --sanitize=address --scratch-path .build/asan -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
	  --filter 'AuthCoreIntegrationTests\.'

# Fuzzing (libFuzzer + AddressSanitizer, release build): one executable, every target
# (Fuzz/AuthCoreFuzz/Targets.swift), seeds in Fuzz/corpus/<target> (scripts/make_fuzz_corpus.py).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(shell cat Fuzz/targets.txt)
FUZZ_BINARY := .build/fuzz/release/authcore-fuzz
FUZZ_ENV := SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0

fuzz-build:
	$(SWIFT) build -c release --scratch-path .build/fuzz --product authcore-fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DAUTHCORE_LIBFUZZER -Xcc -fsanitize=address

# Each target for FUZZ_SECONDS; new inputs go to .build/fuzz-corpus/<target> (the committed seeds
# are read, not written); a crash leaves .build/fuzz-artifacts/<target>-crash-* and fails the run.
fuzz: fuzz-build
	@set -e; for target in $(FUZZ_TARGETS); do \
	  mkdir -p .build/fuzz-corpus/$$target .build/fuzz-artifacts; \
	  echo "==> fuzz $$target for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_ENV) $(FUZZ_BINARY) $$target -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=.build/fuzz-artifacts/$$target- .build/fuzz-corpus/$$target Fuzz/corpus/$$target 2>&1 \
	    | grep -E '^(#[0-9]+ +DONE|Done|stat::number_of_executed_units|authcore-fuzz:|==[0-9]+==|SUMMARY)' ; \
	  test $${PIPESTATUS[0]} -eq 0; \
	done

# Every committed corpus input once, under AddressSanitizer (part of `make test`).
fuzz-replay: fuzz-build
	@set -e; for target in $(FUZZ_TARGETS); do \
	  $(FUZZ_ENV) $(FUZZ_BINARY) $$target -runs=0 Fuzz/corpus/$$target > .build/fuzz-replay-$$target.log 2>&1 \
	    || { tail -n 30 .build/fuzz-replay-$$target.log; echo "fuzz-replay: $$target failed"; exit 1; }; \
	  echo "fuzz-replay: $$target: $$(ls Fuzz/corpus/$$target | wc -l) inputs, clean under ASan"; \
	done

# Constant-flow gate (Valgrind memcheck, the method of BoringSSL's and libsecp256k1's CI): secrets are
# marked undefined where they enter and every branch, memory index or system call depending on one is
# a report; values become public only where the code declassifies them (ConstantFlow.swift). Release
# build with -DAUTHCORE_CONSTANT_FLOW_CHECK; flows in Checks/AuthCoreConstantFlow/Flows.swift. Fails
# unless every flow gives 0 reports and every deliberately variable-time control at least 1.
CT_BINARY := .build/ctgrind/release/authcore-ctcheck
CTGRIND := valgrind --tool=memcheck --error-limit=no --track-origins=yes --num-callers=40

# C targets get DWARF 4: the Debian Valgrind (3.19) cannot read the DWARF 5 clang emits by default.
ctgrind-build: system-deps
	$(SWIFT) build -c release --product authcore-ctcheck --scratch-path .build/ctgrind -Xcc -DAUTHCORE_CONSTANT_FLOW_CHECK -Xcc -gdwarf-4

ctgrind: ctgrind-build
	@$(CTGRIND) --log-file=.build/ctgrind.log $(CT_BINARY) ctgrind \
	  || { echo "ctgrind: reports in .build/ctgrind.log"; exit 1; }

# What memcheck reports inside OpenSSL's P-256 key import and ECDSA with the SigV4a scalar still
# secret: the gate stops where SigV4AKey hands the scalar to OpenSSL; this prints the count beyond it.
ctgrind-openssl: ctgrind-build
	@$(CTGRIND) --log-file=.build/ctgrind-openssl.log $(CT_BINARY) ctgrind-openssl

# Instruction-count equality (callgrind Ir, deterministic) of each secret operation across secret
# classes: zero/small/top-bit exponents, x = 0 vs 2^255, a premaster base with a zero top byte.
ct-count: ctgrind-build
	@$(PYTHON) scripts/ct_count.py $(CT_BINARY)

# Timing (dudect's fixed-vs-random Welch t-test, Checks/AuthCoreConstantFlow/Dudect.swift): the
# proof comparison, the g^x comb and the client premaster must stay below |t| = 10, the early-exit
# controls must exceed it. `make test` runs a 20,000-measurement smoke (~7 s); the default is 1,000,000
# (the premaster gets 1/40 of them).
DUDECT_MEASUREMENTS ?= 1000000
dudect: ctgrind-build
	@$(CT_BINARY) dudect $(DUDECT_MEASUREMENTS)

# The working tree's benchmarks against another commit's, the two release binaries run alternately
# in ABBA order (scripts/bench_ab.py; the base is built once in .build/bench-ab/): for changes of a
# few percent, which one run cannot tell from noise. BASE=<rev> (default HEAD), RUNS=<rounds>
# (default 6), FILTER=<rows> (default sign.get). AUTHCORE_VENV reaches the benchmarks' Python rows.
bench-ab: deps build-release
	AUTHCORE_VENV=$(VENV) $(PYTHON) scripts/bench_ab.py --bench .build/release/authcore-bench --swift "$(SWIFT)" \
	  --base "$(or $(BASE),HEAD)" --runs "$(or $(RUNS),6)" --filter "$(or $(FILTER),sign.get)"

# Heap allocations per signature of the release build's signing rows, each against its budget
# (scripts/alloc_check.py): a count, the same on every run, so it is gated; timings are not.
alloc-check: build-release
	@$(PYTHON) scripts/alloc_check.py

# Instructions per signature of the release build's signing rows and their C twins (callgrind Ir
# outside libcrypto over a fixed iteration count, scripts/ir_check.py), each against its figure:
# deterministic, so gated; what a change of a few percent does shows here, where timings cannot.
ir-check: build-release
	@$(PYTHON) scripts/ir_check.py

# Freed heap blocks that still hold a marker secret (LD_PRELOAD probe, Checks/zeroize), per scenario
# with its gate, and a control with OPENSSL_cleanse disabled that must find them (scripts/zeroize_check.py).
zeroize-check: build
	@$(PYTHON) scripts/zeroize_check.py

# The secret-power kernels leave nothing of a secret on the stack (Checks/stackscrub/kernel_stack.c):
# built as SwiftPM builds the C target (the toolchain's clang, its -fPIC -g -fno-omit-frame-pointer),
# unoptimised and optimised, each beside a control build with the scrub compiled out, which must be caught.
SWIFT_CLANG = $(dir $(shell command -v $(SWIFT)))clang
STACK_SCRUB_BUILD = $(SWIFT_CLANG) -fPIC -g -fno-omit-frame-pointer -Wall -Werror -ISources/CAuthCoreBigNum/include \
  Checks/stackscrub/kernel_stack.c $(wildcard Sources/CAuthCoreBigNum/powm52*.c) Sources/CAuthCoreBigNum/powm64.c -lgmp
stack-scrub-check: system-deps
	@mkdir -p .build/stack-scrub; set -e; for level in -O0 -O2; do \
	  $(STACK_SCRUB_BUILD) $$level -o .build/stack-scrub/check$$level; \
	  $(STACK_SCRUB_BUILD) $$level -DPOWM52_NO_SCRUB_CONTROL -DPOWM64_NO_SCRUB_CONTROL -o .build/stack-scrub/control$$level; \
	  echo "stack-scrub, built $$level:"; .build/stack-scrub/check$$level; .build/stack-scrub/control$$level --control; \
	done

deps: system-deps venv ministack-venv

# The user installing: apt needs root (SETUP_UID is overridable so that the check of the message can run).
SETUP_UID ?= $(shell id -u)
system-deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ] && [ "$(SETUP_UID)" != 0 ]; then \
	  echo "make: these Debian packages are missing and installing them needs root:$$missing" >&2; \
	  echo "make: run 'sudo apt-get install -y --no-install-recommends$$missing' (or this make as root), then again" >&2; \
	  exit 2; \
	fi; \
	if [ -n "$$missing" ]; then \
	  echo "==> installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  for service in squid redis-server; do \
	    case " $$missing " in *" $$service "*) \
	      echo "==> the tests start $$service themselves: the system $$service service is stopped and disabled"; \
	      (command -v systemctl >/dev/null 2>&1 && systemctl disable --now $$service >/dev/null 2>&1) || true; \
	      (command -v service >/dev/null 2>&1 && service $$service stop >/dev/null 2>&1) || true;; \
	    esac; \
	  done; \
	fi

venv: $(VENV)/.requirements-installed

ministack-venv: $(MINISTACK_VENV)/.requirements-installed

$(MINISTACK_VENV)/.requirements-installed: scripts/requirements-ministack.txt
	@if [ ! -x $(MINISTACK_VENV)/bin/python ]; then echo "==> creating $(MINISTACK_VENV)"; $(PYTHON) -m venv $(MINISTACK_VENV); fi
	$(MINISTACK_VENV)/bin/pip install -q --disable-pip-version-check -r scripts/requirements-ministack.txt
	@touch $@

$(VENV)/.requirements-installed: scripts/requirements.txt
	@if [ ! -x $(VENV)/bin/python ]; then echo "==> creating $(VENV)"; $(PYTHON) -m venv $(VENV); fi
	$(VENV)/bin/pip install -q --disable-pip-version-check -r scripts/requirements.txt
	@touch $@

build:
	$(SWIFT) build --build-tests $(WARNINGS_AS_ERRORS)

build-release:
	$(SWIFT) build -c release

vectors: build
	.build/debug/authcore vectors vectors

clean:
	rm -rf .build bench-results.json bench-results.github-action-benchmark.json bench-results.bencher.json
