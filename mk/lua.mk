# The Lua binding (bindings/lua): LuaJIT's FFI over the C ABI, tested under plain LuaJIT and inside
# a real nginx (Debian's, with its Lua module).
.PHONY: lua-deps lua-cdef lua-test

# Installs what is missing of LUA_APT; if apt cannot, one line says what to install.
lua-deps:
	@missing=""; for p in $(LUA_APT); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; } >/dev/null 2>&1 \
	    || { echo "lua: could not install$$missing; install them: apt-get install$$missing (luajit2, not luajit, which conflicts with lua-resty-core)"; exit 1; }; \
	fi

# The FFI declarations, generated from the header (committed; lua-test checks they are current).
lua-cdef:
	$(PYTHON) Tools/headergen.py lua

# The generated declarations are the header's (and the generator's parser tested); the unit tests
# under LuaJIT; the nginx test (~2 s).
lua-test: build lua-deps
	$(PYTHON) Tools/headergen.py lua --check
	$(PYTHON) Tools/test_headergen.py
	luajit bindings/lua/test/run.lua
	$(PYTHON) bindings/lua/test/nginx_test.py
