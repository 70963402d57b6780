# Coverage-guided fuzzing through the C ABI (Tests/fuzz): libFuzzer with AddressSanitizer and
# UndefinedBehaviorSanitizer, the Swift core instrumented too so that coverage guides into it.
#   make fuzz        builds, then runs every target FUZZ_SECONDS (default 300) and goes on past
#                    findings; fails if there are any
#   make fuzz-smoke  builds, then runs every target FUZZ_SMOKE_SECONDS (default 15), stopping a
#                    target at its first finding; fails if there are any (part of make test)
# Everything goes to FUZZ_SCRATCH (default .build-fuzz: SwiftPM's scratch folder, the targets in
# fuzz/, corpora grown in corpus/, findings in findings/<target>/, logs in logs/). The seeds in
# Tests/fuzz/corpus are only read. The toolchain's clang, lld and sanitizer runtimes come with Swift.
FUZZ_TARGETS ?= uri patterns url_for pipeline
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_SCRATCH ?= .build-fuzz
# Included before the Makefile's first rule: leave its default goal as it was.
fuzz_default_goal := $(.DEFAULT_GOAL)

.PHONY: fuzz fuzz-build fuzz-smoke

fuzz-build: deps
	SCRATCH=$(abspath $(FUZZ_SCRATCH)) Tests/fuzz/build.sh $(FUZZ_TARGETS)

fuzz: fuzz-build
	SCRATCH=$(abspath $(FUZZ_SCRATCH)) Tests/fuzz/run.sh -k $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	SCRATCH=$(abspath $(FUZZ_SCRATCH)) Tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

.DEFAULT_GOAL := $(fuzz_default_goal)
