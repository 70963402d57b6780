# Reference documentation, HTML, in DOCS_OUT (default $(BUILD)/docs):
#   make docs        the Swift module Interlock with DocC in DOCS_OUT/swift (a JavaScript app: serve
#                    that folder, `python3 -m http.server -d build/docs/swift`, and open
#                    /documentation/interlock), and the C API of include/interlock.h with Doxygen in
#                    DOCS_OUT/c/html (open index.html); warnings are printed and kept in
#                    DOCS_OUT/swift-warnings.log and DOCS_OUT/c-warnings.log
#   make docs-check  the same, then fails if there is any warning (part of make test): a public
#                    Swift symbol without a `///` comment, or whose comment leaves out a parameter,
#                    `- Returns:` or `- Throws:` (docs/check_swift_docs.py); a DocC diagnostic (an
#                    unresolved ``link``, a documented parameter that does not exist); anything
#                    Doxygen reports (an undocumented function, macro, type or struct member, a
#                    malformed comment); or a declared function missing from the C reference.
# The symbol graph comes from a debug build of the module in DOCS_SCRATCH (default .build-docs);
# docc is the toolchain's, found beside `swift`. Doxygen comes from Debian (docs-deps installs it).
DOCS_OUT ?= $(BUILD)/docs
DOCS_SCRATCH ?= .build-docs
DOCS_APT := doxygen
DOCC ?= $(or $(shell command -v docc 2>/dev/null),$(dir $(realpath $(shell command -v swift 2>/dev/null)))docc)
DOXYGEN ?= doxygen
# Included before the Makefile's first rule: leave its default goal as it was.
docs_default_goal := $(.DEFAULT_GOAL)

.PHONY: docs docs-deps docs-swift docs-c docs-check

# Doxygen from Debian, only if it is missing.
docs-deps:
	$(call apt_install,$(DOCS_APT))

docs: docs-swift docs-c
	@echo "docs: Swift $(DOCS_OUT)/swift (serve the folder, open /documentation/interlock), C $(DOCS_OUT)/c/html/index.html"

# The symbol graph is written by the module's build, so it is rewritten exactly when the sources
# change. The catalog Sources/Interlock/Interlock.docc holds the landing page.
docs-swift: deps
	@mkdir -p $(DOCS_OUT)
	swift build --target Interlock --scratch-path $(DOCS_SCRATCH) -Xswiftc -emit-symbol-graph \
	  -Xswiftc -emit-symbol-graph-dir -Xswiftc $(abspath $(DOCS_SCRATCH))/symbol-graphs
	@rm -rf $(DOCS_OUT)/swift
	@$(DOCC) convert Sources/Interlock/Interlock.docc \
	    --additional-symbol-graph-dir $(DOCS_SCRATCH)/symbol-graphs \
	    --output-path $(DOCS_OUT)/swift --fallback-display-name Interlock \
	    --fallback-bundle-identifier interlock --transform-for-static-hosting \
	    > $(DOCS_OUT)/swift-docc.log 2>&1; rc=$$?; \
	$(PYTHON) docs/check_swift_docs.py $(DOCS_SCRATCH)/symbol-graphs Interlock >> $(DOCS_OUT)/swift-docc.log 2>&1; \
	grep -E '(warning|error):' $(DOCS_OUT)/swift-docc.log > $(DOCS_OUT)/swift-warnings.log; \
	if [ $$rc != 0 ]; then cat $(DOCS_OUT)/swift-docc.log; echo "docs-swift: docc failed"; exit $$rc; fi; \
	cat $(DOCS_OUT)/swift-warnings.log; \
	echo "docs-swift: $$(grep -c . $(DOCS_OUT)/swift-warnings.log) warning(s), $(DOCS_OUT)/swift"

# The Doxyfile names paths from the repository's root; the output folder, the warning log and the
# version (the header's) are set here. Doxygen says nothing of a file that lacks a @file comment,
# so every function the header declares (found as Tests/c/check_symbols.sh finds them) must also
# be in the generated index of functions: one that is not is a warning too.
DOCS_VERSION = $(shell sed -n 's/^\#define ILK_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' include/interlock.h | paste -sd.)
docs-c: docs-deps
	@rm -rf $(DOCS_OUT)/c/html && mkdir -p $(DOCS_OUT)/c
	@{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $(DOCS_OUT)/c"; echo "PROJECT_NUMBER = $(DOCS_VERSION)"; \
	   echo "WARN_LOGFILE = $(DOCS_OUT)/c-warnings.log"; } | $(DOXYGEN) - > $(DOCS_OUT)/c-doxygen.log
	@for f in $$(sed -nE '/^(typedef|#)/d; s/^[^(]*[ *](ilk_[a-z0-9_]+)\(.*/\1/p' include/interlock.h | sort -u); do \
	  grep -q ">$$f()" $(DOCS_OUT)/c/html/globals_func.html 2>/dev/null \
	    || echo "include/interlock.h: warning: $$f is not in the generated reference"; \
	done >> $(DOCS_OUT)/c-warnings.log
	@cat $(DOCS_OUT)/c-warnings.log
	@echo "docs-c: $$(grep -c . $(DOCS_OUT)/c-warnings.log) warning(s), $(DOCS_OUT)/c/html"

docs-check: docs
	@sw=$$(grep -c . $(DOCS_OUT)/swift-warnings.log); c=$$(grep -c . $(DOCS_OUT)/c-warnings.log); \
	if [ "$$sw" != 0 ] || [ "$$c" != 0 ]; then \
	  echo "docs-check: FAILED: $$sw Swift and $$c C documentation warning(s) (listed above)"; exit 1; \
	fi; \
	echo "docs-check: no documentation warnings (Swift module Interlock, include/interlock.h)"

.DEFAULT_GOAL := $(docs_default_goal)
