--- Interlock for LuaJIT: an embeddable routing core through the FFI.
--
--   local interlock = require "interlock"
--   local router = assert(interlock.new())
--   local id = assert(router:add_route("GET /repos/:owner/:repo", { name = "repo" }))
--   local params = {}
--   local route, data = router:match("/repos/a/b", "GET", params)   -- 1, nil, {owner="a", repo="b"}
--
-- Errors of input (a malformed pattern, URI, route file) are returned as nil, message, offset,
-- code (OpenResty's convention; offset is the byte offset, or nil; code is the status's name,
-- "EPATTERN"); a wrong argument type is raised. The reference: bindings/lua/README.md.
local native = require "interlock.native"
local router = require "interlock.router"
local values = require "interlock.values"
local pipeline = require "interlock.pipeline"

local interlock = {
  new = router.new,
  validate_status = pipeline.validate_status,
  Router = router.Router,
  Request = values.Request,
  Response = values.Response,
  -- The header's integer constants, as it names them (ILK_OK...) and without the prefix (OK...):
  -- statuses, the verbs callbacks return (CONTINUE, STOP, REDIRECT, ABORT, RETRY), flags.
  constants = native.K,
  groups = native.groups,
  library = native.path,
}

for name, value in pairs(native.K) do
  interlock[name:sub(5)] = value
end

interlock.version = require("ffi").string(native.C.ilk_version())
interlock._VERSION = interlock.version

return interlock
