# Sanitizer runs of the existing suites.
#   make sanitize        every piece below, one after another (each goes on past the others'
#                        failures; fails if any failed)
#   make sanitize-smoke  all but sanitize-swift-asan, the longest (~2.5 min from nothing built on
#                        2 cores, ~30 s once built; part of make test)
# The pieces:
#   sanitize-c-asan      the C test programs (ctest) against the library built with
#                        -sanitize=address, the programs with -fsanitize=address,undefined;
#                        LeakSanitizer on (Tests/c/lsan.supp)               folder SAN_ASAN_BUILD
#   sanitize-c-tsan      the same programs (test_threads is the one with threads) with
#                        ThreadSanitizer, library and programs              folder SAN_TSAN_BUILD
#   sanitize-valgrind    valgrind memcheck over the same programs against the release library of
#                        $(BUILD): any invalid access or definite leak fails (ctest -T memcheck;
#                        Tests/c/valgrind.supp)
#   sanitize-swift-asan  swift test under AddressSanitizer + LeakSanitizer
#                        (Tests/c/lsan-swift-tests.supp)                    scratch SAN_SWIFT_ASAN
#   sanitize-swift-tsan  swift test under ThreadSanitizer, the tests that start threads
#                        (SAN_TSAN_TESTS: every @Test that calls onThreads) scratch SAN_SWIFT_TSAN
# TSan and Synchronization.Mutex: the stdlib is not instrumented, so TSan would report the state
# a Mutex guards as raced whenever the lock was contended. Both TSan pieces preload
# ilk_tsan_mutex (built in SAN_TSAN_BUILD; see ILK_SANITIZE=thread in CMakeLists.txt), which tells
# TSan what the contended lock and unlock do; no race is suppressed.
# Each piece ends with one line: sanitize[piece]: passed|FAILED, its sanitizer reports, its time.
# Its full output is also kept in SAN_LOGS/<piece>.log.
SAN_ASAN_BUILD ?= build-asan
SAN_TSAN_BUILD ?= build-tsan
SAN_SWIFT_ASAN ?= .build-asan
SAN_SWIFT_TSAN ?= .build-tsan
SAN_LOGS ?= build-sanitize-logs
SAN_PIECES ?= sanitize-swift-asan sanitize-swift-tsan sanitize-c-asan sanitize-c-tsan sanitize-valgrind
SAN_SMOKE_PIECES ?= sanitize-c-asan sanitize-c-tsan sanitize-valgrind sanitize-swift-tsan
# The Swift tests that start threads, found where they are written (the function of each @Test
# whose body calls onThreads), so that a new one is run under TSan without being listed here.
san_threads_awk = FNR == 1 { t = "" } /@Test/ && /func / { match($$0, /func [A-Za-z0-9_]+/); t = substr($$0, RSTART + 5, RLENGTH - 5) } /onThreads\(/ && t != "" { print t }
SAN_TSAN_TESTS ?= $(shell awk '$(san_threads_awk)' Tests/InterlockTests/*.swift | sort -u)
san_toolchain_bin = $(dir $(realpath $(shell command -v swift)))
san_symbolizer = $(san_toolchain_bin)llvm-symbolizer
san_empty :=
san_space := $(san_empty) $(san_empty)
# Included before the Makefile's first rule: leave its default goal as it was.
san_default_goal := $(.DEFAULT_GOAL)

.PHONY: sanitize sanitize-smoke $(SAN_PIECES) san-asan-build san-tsan-build san-valgrind-deps

# $(call san_run,piece,command): runs the command with its output shown and kept in the log, then
# prints the closing line (the reports counted are the sanitizers' and valgrind's own headers).
define san_run
	@mkdir -p $(SAN_LOGS); start=$$(date +%s); log=$(abspath $(SAN_LOGS))/$(1); \
	{ { $(2); } 2>&1; echo $$? > $$log.rc; } | tee $$log.log; \
	rc=$$(cat $$log.rc 2>/dev/null || echo 1); \
	n=$$(grep -c -E 'ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:|^==[0-9]+== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|.* definitely lost in loss record)' $$log.log); \
	if [ "$$rc" = 0 ]; then verdict=passed; else verdict=FAILED; fi; \
	echo "sanitize[$(1)]: $$verdict, $$n sanitizer/valgrind reports, $$(( $$(date +%s) - start )) s (log: $(SAN_LOGS)/$(1).log)"; \
	[ "$$rc" = 0 ]
endef

# Runs the pieces in turn (never two heavy builds at once), then one line for them all.
define san_all
	@failed=""; start=$$(date +%s); \
	for piece in $(1); do $(MAKE) --no-print-directory $$piece || failed="$$failed $$piece"; done; \
	if [ -z "$$failed" ]; then \
	  echo "$(2): passed ($(1)) in $$(( $$(date +%s) - start )) s"; \
	else \
	  echo "$(2): FAILED:$$failed ($$(( $$(date +%s) - start )) s)"; exit 1; \
	fi
endef

sanitize:
	$(call san_all,$(SAN_PIECES),sanitize)

sanitize-smoke:
	$(call san_all,$(SAN_SMOKE_PIECES),sanitize-smoke)

# --- C tests against sanitizer builds of the library ---------------------------------------------

$(SAN_ASAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(SAN_ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DILK_SANITIZE=address

$(SAN_TSAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(SAN_TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DILK_SANITIZE=thread

san-asan-build: deps $(SAN_ASAN_BUILD)/build.ninja
	cmake --build $(SAN_ASAN_BUILD)

san-tsan-build: deps $(SAN_TSAN_BUILD)/build.ninja
	cmake --build $(SAN_TSAN_BUILD)

# The sanitizer options of these runs are the tests' ENVIRONMENT (Tests/c/CMakeLists.txt), so
# that ctest in the folder by hand runs them the same way.
sanitize-c-asan: san-asan-build
	$(call san_run,c-asan,cd $(SAN_ASAN_BUILD) && ctest --output-on-failure)

sanitize-c-tsan: san-tsan-build
	$(call san_run,c-tsan,cd $(SAN_TSAN_BUILD) && ctest --output-on-failure)

# --- valgrind over the C tests against the release library -------------------------------------

san-valgrind-deps:
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }

# CMake looks for valgrind when it configures; a folder configured before valgrind was installed
# is told where it is now. Each program's memcheck output is in $(BUILD)/Testing/Temporary; it
# is shown in full for a program that failed, as two lines otherwise. test_threads re-adds a route
# fewer times here (ILK_TEST_READDINGS): valgrind runs one thread at a time, so the race it looks
# for is the other runs' to find, and memcheck made its 100,000 take minutes.
sanitize-valgrind: build san-valgrind-deps
	@grep -q '^MemoryCheckCommand: /' $(BUILD)/DartConfiguration.tcl || \
	  cmake $(BUILD) -DMEMORYCHECK_COMMAND=$$(command -v valgrind) >/dev/null
	$(call san_run,valgrind,cd $(BUILD) && rm -f Testing/Temporary/MemoryChecker.*.log && \
	  ILK_TEST_READDINGS=2000 ctest -T memcheck -L programs --timeout 600 --output-on-failure; status=$$?; \
	  for f in Testing/Temporary/MemoryChecker.*.log; do \
	    cmd=$$(sed -n 's/^==[0-9]*== Command: //p' $$f | head -1); \
	    if grep -q -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' $$f; then echo "== $$cmd"; cat $$f; \
	    else echo "== $$cmd: $$(grep -h -o -E 'definitely lost: [^ ]+ bytes|ERROR SUMMARY: [0-9]+ errors' $$f | sort | uniq -c | tr -s ' ' | tr '\n' ';')"; fi; \
	  done; [ $$status = 0 ])

# --- Swift tests ---------------------------------------------------------------------------------

# malloc_context_size: the suppressions name test functions, which lie deeper than 30 frames.
sanitize-swift-asan: deps
	$(call san_run,swift-asan,ASAN_OPTIONS=detect_leaks=1:malloc_context_size=100:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/c/lsan-swift-tests.supp:print_suppressions=1 \
	  ASAN_SYMBOLIZER_PATH=$(san_symbolizer) \
	  swift test --parallel --disable-xctest --sanitize=address --scratch-path $(SAN_SWIFT_ASAN))

sanitize-swift-tsan: deps $(SAN_TSAN_BUILD)/build.ninja
	@test -n "$(SAN_TSAN_TESTS)" || { echo "sanitize-swift-tsan: no test calls onThreads"; exit 1; }
	cmake --build $(SAN_TSAN_BUILD) --target ilk_tsan_mutex
	$(call san_run,swift-tsan,echo "Under TSan: $(SAN_TSAN_TESTS)" && \
	  TSAN_OPTIONS=halt_on_error=0:second_deadlock_stack=1 TSAN_SYMBOLIZER_PATH=$(san_symbolizer) \
	  LD_PRELOAD=$(CURDIR)/$(SAN_TSAN_BUILD)/libilk_tsan_mutex.so \
	  swift test --disable-xctest --sanitize=thread --scratch-path $(SAN_SWIFT_TSAN) \
	    --filter '$(subst $(san_space),|,$(strip $(SAN_TSAN_TESTS)))')

.DEFAULT_GOAL := $(san_default_goal)
