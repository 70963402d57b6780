-- LuaRocks: `luarocks make` in bindings/lua installs the module from a checkout; it needs the
-- library installed (libinterlock.so and interlock.h: cmake --install, README.md "Linking").
-- The version is the header's (bindings/lua/test/test_header.lua checks it).
rockspec_format = "3.0"
package = "interlock"
version = "0.3.0-1"
source = {
   -- The project's repository, once published; `luarocks make` from a checkout does not read it.
   url = "git+https://example.invalid/interlock.git",
   tag = "v0.3.0",
}
description = {
   summary = "Interlock, an embeddable routing core, for LuaJIT and OpenResty (through the FFI)",
   detailed = [[
Route patterns ("GET /repos/:owner/:repo", "myapp://user/:id(\d+)") compiled to JIT-compiled
PCRE2 regexes; match without callbacks or garbage per lookup, resolve through filters, guards
and interceptors written in Lua, url_for, explain, route files.
]],
   license = "MIT",
}
supported_platforms = { "linux" }
dependencies = {
   "lua == 5.1",   -- LuaJIT 2.1 (its FFI): OpenResty's luajit2, or nginx's Lua module
}
external_dependencies = {
   INTERLOCK = { header = "interlock.h", library = "interlock" },
}
build = {
   type = "builtin",
   modules = {
      interlock = "interlock.lua",
      ["interlock.cdef"] = "interlock/cdef.lua",
      ["interlock.native"] = "interlock/native.lua",
      ["interlock.router"] = "interlock/router.lua",
      ["interlock.values"] = "interlock/values.lua",
      ["interlock.callbacks"] = "interlock/callbacks.lua",
      ["interlock.pipeline"] = "interlock/pipeline.lua",
   },
}
