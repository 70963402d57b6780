# Node.js (bindings/node): the addon built against the library of the CMake build in $(BUILD).
#   make node-build   bindings/node/build/Release/interlock.node, by the node-gyp that npm bundles
#                     (or Debian's), offline: --nodedir=/usr takes the headers of the machine's Node
#                     (/usr/include/node, node_api.h), nothing is downloaded
#   make node-test    node-build, then `node --test` on bindings/node/test/*.test.js (part of make
#                     test; test/support/ holds helpers, not tests)
# Node.js and the headers come from the machine, else from Debian (nodejs, npm, libnode-dev); where
# they cannot be had, both stop at once with one line saying what to install. tsc (Debian's
# node-typescript) checks index.d.ts; without it that one test is skipped, saying why.
NODE ?= node
NODE_APT := nodejs npm libnode-dev
# tsc, for the test of the TypeScript declarations (test/types.test.js).
NODE_TYPES_APT := node-typescript
node_apt = { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(1); } >/dev/null 2>&1
NODE_ADDON := bindings/node/build/Release/interlock.node
# Included before the Makefile's first rule: leave its default goal as it was.
node_default_goal := $(.DEFAULT_GOAL)

.PHONY: node-deps node-build node-test

# $(node_gyp): the path of node-gyp's script: npm's own copy, else Debian's package.
node_gyp = $$(for f in "$$(dirname "$$(readlink -f "$$(command -v npm 2>/dev/null || echo /nonexistent)")")/../node_modules/node-gyp/bin/node-gyp.js" \
	  /usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js /usr/share/nodejs/node-gyp/bin/node-gyp.js; do \
	  [ -f "$$f" ] && { echo "$$f"; break; }; done)

node-deps:
	@if ! command -v $(NODE) >/dev/null 2>&1 || [ ! -f /usr/include/node/node_api.h ] || [ -z "$(node_gyp)" ]; then \
	  echo "Installing: $(NODE_APT)"; \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(NODE_APT); } >/dev/null 2>&1; \
	fi; \
	if ! command -v $(NODE) >/dev/null 2>&1 || [ ! -f /usr/include/node/node_api.h ] || [ -z "$(node_gyp)" ]; then \
	  echo "node: needs Node.js 18 or newer, its headers (/usr/include/node/node_api.h) and node-gyp: apt install nodejs npm libnode-dev"; \
	  exit 1; \
	fi
	@command -v tsc >/dev/null 2>&1 || $(call node_apt,$(NODE_TYPES_APT)) || echo "node: tsc could not be installed (apt install node-typescript); the test of index.d.ts will be skipped"

$(NODE_ADDON): bindings/node/binding.gyp $(wildcard bindings/node/src/*.c bindings/node/src/*.h) include/interlock.h $(BUILD)/lib/libinterlock.so
	cd bindings/node && $(NODE) "$(node_gyp)" rebuild --nodedir=/usr --loglevel=warn -- -Dinterlock_build=$(abspath $(BUILD))

node-build: build node-deps
	@$(MAKE) --no-print-directory $(NODE_ADDON)

node-test: node-build
	$(NODE) --test bindings/node/test/*.test.js

.DEFAULT_GOAL := $(node_default_goal)
