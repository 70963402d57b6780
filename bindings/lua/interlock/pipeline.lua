-- The pipeline from Lua: destinations, filters, guards and interceptors written as Lua functions
-- (interlock/callbacks.lua runs them), and resolve. Adds its methods to the Router of
-- interlock/router.lua.
--
-- Only ilk_router_resolve, ilk_router_replay_pending_link and ilk_filter_chain_next call back
-- into Lua. The Lua functions that call them are never JIT-compiled (jit.off): LuaJIT does not
-- allow a callback from a C function called by compiled code.
local ffi = require "ffi"
local native = require "interlock.native"
local router_module = require "interlock.router"
local values = require "interlock.values"
local callback_module = require "interlock.callbacks"

local C, K, fail, status_name = native.C, native.K, native.fail, native.status_name
local Router, argument, optional = router_module.Router, router_module.argument, router_module.optional
local with_route = Router._with_route
local callbacks, running, key_of = callback_module.callbacks, callback_module.running, callback_module.key_of
local request_of, text = values.request_of, values.text
local OK = K.ILK_OK
local ffi_string, tonumber = ffi.string, tonumber

-- ----------------------------------------------------------------------------------------------
-- Adding stages

local function route_or_global(self, route)
  if route == nil or route == 0 then return 0 end
  return self:_route(route)
end

-- A method `(route, fn)` setting a route's callback `fn` (checked by `check`: argument, or optional
-- where nil removes it): the library's `set` with `trampoline`, the function kept in the router's
-- list `owned` for the route. The method returns true, or nil, message, offset, code.
local function route_callback_setter(check, set, trampoline, owned)
  return with_route(function(self, id, fn)
    check(fn, "function", "fn")
    local userdata = fn and self:_hold(fn) or nil
    local rc = set(self._h, id, fn and trampoline or nil, userdata, nil)
    if rc ~= OK then
      self:_forget_key(userdata)
      return fail(rc)
    end
    self:_own(id, userdata, owned)
    return true
  end)
end

--- Sets (or, with nil, removes) the destination of a route (its id or name), e.g. a loaded one.
-- `fn(request, response)` may return a string: the body. Returns true, or nil, message, offset, code.
Router.set_handler = route_callback_setter(argument, C.ilk_router_set_destination, callbacks.destination, "_handlers")

--- Sets the destination of requests no route matched: `fn(request, response)`.
function Router:set_default(fn)
  optional(fn, "function", "fn")
  local userdata = fn and self:_hold(fn) or nil
  local rc = C.ilk_router_set_default(self._h, fn and callbacks.destination or nil, userdata, nil)
  if rc ~= OK then return fail(rc) end
  if self._default then self:_drop(self._default) end
  self._default = userdata and key_of(userdata) or nil
  return true
end

--- Sets a route's guard `fn(request)`: truthy allows, false or nil refuses (the resolve ends as
-- GUARDED and the URI becomes the pending link). nil removes it. true, or nil, message, offset, code.
Router.set_guard = route_callback_setter(optional, C.ilk_router_set_guard, callbacks.guard, "_guards")

--- Appends a filter `fn(request, chain)` to the global chain. It continues with
-- `chain:next(request)` (then returns nothing), stops with `return interlock.STOP`, or
-- redirects with `return chain:redirect(uri)` / `chain:redirect_to(name, params)`. A filter that
-- stops answers with `chain:response()` as it wrote it (status, headers, body), as a destination
-- does its `response`; returning a string stops too, that string being the body.
-- `name` appears in the trace.
function Router:add_filter(fn, name)
  argument(fn, "function", "fn")
  local userdata = self:_hold(fn)
  local rc = C.ilk_router_add_filter(self._h, optional(name, "string", "name"), callbacks.filter, userdata, nil)
  if rc ~= OK then
    self:_forget_key(userdata)
    return fail(rc)
  end
  return true
end

-- A built-in interceptor of the library (interlock.validate_status).
local Builtin = {}
Builtin.__index = Builtin

local function add_interceptor(self, fn, route, name, response)
  local id, message, offset, code = route_or_global(self, route)
  if not id then return nil, message, offset, code end
  if getmetatable(fn) == Builtin then
    local rc = C.ilk_router_add_interceptor(self._h, fn._h, id)
    if rc ~= OK then return fail(rc) end
    return true
  end
  argument(fn, "function", "fn")
  local userdata = self:_hold(fn)
  local out = ffi.new("ilk_interceptor *[1]")
  local rc
  if response then
    rc = C.ilk_interceptor_new_response(out, optional(name, "string", "name"), callbacks.response, userdata, nil)
  else
    rc = C.ilk_interceptor_new_request(out, optional(name, "string", "name"), callbacks.request, userdata, nil)
  end
  if rc == OK then
    rc = C.ilk_router_add_interceptor(self._h, out[0], id)
    if rc ~= OK then
      local _, m, o, c = fail(rc)
      C.ilk_interceptor_free(out[0])
      self:_forget_key(userdata)
      return nil, m, o, c
    end
    C.ilk_interceptor_free(out[0])   -- the router holds its own reference
  else
    self:_forget_key(userdata)
    return fail(rc)
  end
  if id ~= 0 then self:_own(id, userdata) end
  return true
end

--- Adds a request interceptor `fn(request)` (or a built-in) globally, or to a route's scope
-- (`route`: its id or name). It returns nothing to continue, or `request:abort(reason)`.
function Router:add_request_interceptor(fn, route, name)
  return add_interceptor(self, fn, route, name, false)
end

--- Adds a response interceptor `fn(request, response)` (or a built-in such as
-- interlock.validate_status(200, 299)). It returns nothing, `response:abort(reason)` or `response:retry()`.
function Router:add_response_interceptor(fn, route, name)
  return add_interceptor(self, fn, route, name, true)
end

--- The library's logger on every resolve: `fn(line)` gets one line per request and one per response.
function Router:add_logger(fn)
  argument(fn, "function", "fn")
  local userdata = self:_hold(fn)
  local request_side, response_side = ffi.new("ilk_interceptor *[1]"), ffi.new("ilk_interceptor *[1]")
  local rc = C.ilk_interceptor_new_logging(request_side, response_side, callbacks.log, userdata, nil)
  if rc ~= OK then
    self:_forget_key(userdata)
    return fail(rc)
  end
  local rc1 = C.ilk_router_add_interceptor(self._h, request_side[0], 0)
  local rc2 = rc1 == OK and C.ilk_router_add_interceptor(self._h, response_side[0], 0) or rc1
  local err = rc2 ~= OK and { fail(rc2) }
  C.ilk_interceptor_free(request_side[0])
  C.ilk_interceptor_free(response_side[0])
  if err then return unpack(err, 1, 4) end
  return true
end

--- The library's status validator: a response interceptor that aborts outside [min, max].
local function validate_status(min, max)
  local out = ffi.new("ilk_interceptor *[1]")
  local rc = C.ilk_interceptor_new_validate_status(out, argument(min, "number", "min"), argument(max, "number", "max"))
  if rc ~= OK then return fail(rc) end
  return setmetatable({ _h = ffi.gc(out[0], C.ilk_interceptor_free) }, Builtin)
end

--- How many redirects and retries one resolve may take.
function Router:set_limits(redirects, retries)
  local rc = C.ilk_router_set_limits(self._h, argument(redirects, "number", "redirects"), argument(retries, "number", "retries"))
  if rc ~= OK then return fail(rc) end
  return true
end

-- ----------------------------------------------------------------------------------------------
-- Resolving

local Result = {}
Result.__index = Result

--- The value of state `key` when the resolve ended, or nil.
function Result:state(key)
  return text(C.ilk_result_state(self._h, argument(key, "string", "key")))
end

--- The first response header called `name` (ASCII case-insensitively), or nil.
function Result:header(name)
  name = name:lower()
  for _, h in ipairs(self.headers) do
    if h[1]:lower() == name then return h[2] end
  end
  return nil
end

local function result_of(router, r, rc)
  local len = ffi.new("size_t[1]")
  local body = C.ilk_result_body(r, len)
  local a, b, c = ffi.new("const char *[1]"), ffi.new("const char *[1]"), ffi.new("const char *[1]")
  local headers, trace, redirects, allowed = {}, {}, {}, {}
  for i = 0, tonumber(C.ilk_result_header_count(r)) - 1 do
    C.ilk_result_header_at(r, i, a, b)
    headers[#headers + 1] = { ffi_string(a[0]), ffi_string(b[0]) }
  end
  for i = 0, tonumber(C.ilk_result_trace_count(r)) - 1 do
    C.ilk_result_trace_at(r, i, a, b, c)
    trace[#trace + 1] = { stage = ffi_string(a[0]), name = text(b[0]), decision = text(c[0]) }
  end
  for i = 0, tonumber(C.ilk_result_redirect_count(r)) - 1 do
    redirects[#redirects + 1] = text(C.ilk_result_redirect_at(r, i))
  end
  for i = 0, tonumber(C.ilk_result_allowed_count(r)) - 1 do
    allowed[#allowed + 1] = text(C.ilk_result_allowed_at(r, i))
  end
  local handle = ffi.gc(r, C.ilk_result_free)
  local self = setmetatable({
    _h = handle,
    code = rc,
    status = status_name[rc] or rc,
    response_status = C.ilk_result_response_status(r),
    body = ffi_string(body, len[0]),
    headers = headers,
    error = text(C.ilk_result_error(r)),
    route_id = C.ilk_result_route_id(r),
    redirects = redirects,
    trace = trace,
    allowed = allowed,
  }, Result)
  -- The request the destination saw (params, query, metadata...), valid while the result is.
  self.request = request_of(C.ilk_result_request(r), router, self)
  self.params = self.request:params()
  return self
end

-- Runs `call` (a library call that may call back) as a resolve of `router`; returns its result.
local function run(router, call, a, b, c, d)
  local context = {}
  running[#running + 1] = context
  router._depth = router._depth + 1
  local out = ffi.new("ilk_result *[1]")
  local rc = call(a, b, c, d, out)
  local r = out[0]
  -- Read the error (if any) before any other library call.
  local _, message, offset, code
  if r == nil and rc ~= OK then _, message, offset, code = fail(rc) end
  router._depth = router._depth - 1
  running[#running] = nil
  if router._depth == 0 and #router._dropped > 0 then
    for _, key in ipairs(router._dropped) do router._fns[key] = nil end
    router._dropped = {}
  end
  if context.error ~= nil then
    if r ~= nil then C.ilk_result_free(r) end
    error(context.error, 0)
  end
  if r == nil then
    if rc == OK then return nil end      -- a replay with nothing pending
    return nil, message, offset, code
  end
  return result_of(router, r, rc)
end
jit.off(run)

--- Runs the pipeline for `uri` under `method` (nil or "": any). Returns a result: `status` (the
-- name of how it ended: "OK", "NOT_FOUND", "METHOD_NOT_ALLOWED", "STOPPED", "GUARDED", "ABORTED",
-- "REDIRECT_LOOP", "RETRY_LIMIT", "ECALLBACK"), `code`, `response_status`, `body`, `headers`
-- ({name, value} pairs), `route_id`, `params`, `error`, `redirects`, `trace`, `allowed`,
-- `request`, `state(key)`. A malformed URI or method: nil, message, offset, code. A Lua error
-- raised by a callback is raised again here, once the library has returned.
local function resolve(self, uri, method)
  argument(uri, "bytes", "uri")
  optional(method, "string", "method")
  return run(self, C.ilk_router_resolve, self._h, method, uri, #uri)
end
jit.off(resolve)
Router.resolve = resolve

local link_size = 256

local function copy_link(self, fn)
  while true do
    local buffer = ffi.new("char[?]", link_size)
    local length = tonumber(fn(self._h, buffer, link_size))
    if length == 0 then return nil end
    if length < link_size then return ffi_string(buffer, length) end
    link_size = length + 1
  end
end

--- The last URI a guard refused, not yet taken or replayed; or nil.
function Router:pending_link() return copy_link(self, C.ilk_router_pending_link) end
--- The pending link, cleared; or nil.
function Router:take_pending_link() return copy_link(self, C.ilk_router_take_pending_link) end

--- Resolves the pending link again (nil when none is pending), as resolve.
local function replay(self)
  return run(self, function(h, _, _, _, out) return C.ilk_router_replay_pending_link(h, out) end, self._h)
end
jit.off(replay)
Router.replay_pending_link = replay

return {
  validate_status = validate_status,
}
