# The Python package as a wheel that installs anywhere it can run (bindings/python):
#   make wheel   bindings/python/dist/interlock-<version>-cp39-abi3-manylinux_2_NN_x86_64.whl: the
#                library and the interlock command from the CMake build in $(BUILD) (reused when
#                current, not built again), stripped, libpcre2
#                vendored by auditwheel repair, which also sets the manylinux tag from the glibc
#                symbol versions the library uses, and the accelerator of Router.match; installs
#                with pip on any x86-64 Linux with that glibc or newer, with neither Swift nor PCRE2
#                there; and the same without the accelerator, -py3-none-, which pip picks where an
#                abi3 extension does not serve (PyPy, free-threaded CPython)
#   make sdist   bindings/python/dist/interlock-<version>.tar.gz: builds from itself (CMake, Swift
#                and libpcre2-dev needed there; without them it says which and how to get them)
# Both build through `python -m build` (PEP 517, setuptools + the hook in bindings/python/setup.py),
# as `pip wheel bindings/python` does; the build's own requirements come from PyPI.
WHEEL_DIR ?= bindings/python/dist
# Included before the Makefile's first rule: leave its default goal as it was.
wheel_default_goal := $(.DEFAULT_GOAL)

.PHONY: wheel sdist wheel-clean

wheel: deps py-deps $(BUILD)/build.ninja
	INTERLOCK_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) -m build --wheel --outdir $(WHEEL_DIR) bindings/python
	INTERLOCK_BUILD_DIR=$(abspath $(BUILD)) INTERLOCK_PURE_PYTHON=1 $(PYTHON) -m build --wheel --outdir $(WHEEL_DIR) bindings/python
	@ls -l $(WHEEL_DIR)/*.whl

sdist: py-deps
	$(PYTHON) -m build --sdist --outdir $(WHEEL_DIR) bindings/python
	@ls -l $(WHEEL_DIR)/*.tar.gz

wheel-clean:
	rm -rf $(WHEEL_DIR)

clean: wheel-clean

.DEFAULT_GOAL := $(wheel_default_goal)
