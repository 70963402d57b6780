-- The pipeline from Lua: destinations, filters, guards and interceptors written as Lua functions,
-- and resolve. Adds its methods to the Router of interlock/router.lua.
--
-- Callbacks: one FFI callback per kind (destination, filter, guard, request and response
-- interceptor, log line), made once when the module loads, whatever the number of routers and
-- routes: LuaJIT has a fixed number of callback slots. The library's userdata says which Lua
-- function to run: the router's number times 2^32 plus a key in the router's `_fns`. No free
-- function is given to the library (it never calls back to free): the router holds its
-- functions, drops a removed route's once no resolve of the router runs, and lets them all go
-- with itself.
--
-- Only ilk_router_resolve, ilk_router_replay_pending_link and ilk_filter_chain_next call back
-- into Lua. The Lua functions that call them are never JIT-compiled (jit.off): LuaJIT does not
-- allow a callback from a C function called by compiled code.
local ffi = require "ffi"
local native = require "interlock.native"
local router_module = require "interlock.router"

local C, K, fail, status_name = native.C, native.K, native.fail, native.status_name
local Router, routers, argument, optional = router_module.Router, router_module.routers,
  router_module.argument, router_module.optional
local name_value_arrays = Router._name_value_arrays
local OK, CONTINUE, ECALLBACK = K.ILK_OK, K.ILK_CONTINUE, K.ILK_ECALLBACK
local ffi_string, tonumber, type, floor = ffi.string, tonumber, type, math.floor
local SHIFT = 2 ^ 32

-- The resolves under way, innermost last (a callback may resolve again): each the first Lua
-- error a callback raised, re-raised by its resolve once the library returns.
local running = {}

local function text(pointer)
  if pointer == nil then return nil end
  return ffi_string(pointer)
end

-- ----------------------------------------------------------------------------------------------
-- Requests, responses and filter chains, as callbacks see them: valid during the call only.

local Request = {}
Request.__index = Request

local function request_of(pointer, router, owner)
  return setmetatable({ _p = ffi.cast("ilk_request *", pointer), _router = router, _owner = owner }, Request)
end

local function live(self)
  local p = self._p
  if p == nil then error("interlock: this request is used after its callback returned", 3) end
  return p
end

function Request:uri() return text(C.ilk_request_uri(live(self))) end
function Request:method() return text(C.ilk_request_method(live(self))) end
function Request:scheme() return text(C.ilk_request_scheme(live(self))) end
function Request:host() return text(C.ilk_request_host(live(self))) end
function Request:port() return text(C.ilk_request_port(live(self))) end
function Request:path() return text(C.ilk_request_path(live(self))) end
function Request:fragment() return text(C.ilk_request_fragment(live(self))) end
function Request:pattern() return text(C.ilk_request_pattern(live(self))) end
--- The matched route's id, 0 if none matched.
function Request:route_id() return C.ilk_request_route_id(live(self)) end
--- The matched route's name, or nil.
function Request:route_name()
  local id = self:route_id()
  if id == 0 then return nil end
  return (self._router:route_name(id))
end
--- The matched route's data (what add_route's `data` or a route file gave it), or nil.
function Request:data()
  local id = self:route_id()
  return id ~= 0 and self._router._data[id] or nil
end
--- A parameter's decoded value, or nil.
function Request:param(name) return text(C.ilk_request_param(live(self), argument(name, "string", "name"))) end
--- Every parameter: a table name = value.
function Request:params()
  local p, t = live(self), {}
  local names, values = ffi.new("const char *[1]"), ffi.new("const char *[1]")
  for i = 0, tonumber(C.ilk_request_param_count(p)) - 1 do
    C.ilk_request_param_at(p, i, names, values)
    t[ffi_string(names[0])] = ffi_string(values[0])
  end
  return t
end
--- The first value of query key `key`, or nil.
function Request:query(key) return text(C.ilk_request_query(live(self), argument(key, "string", "key"))) end
--- Every query pair, in order: a list of {key, value}.
function Request:query_pairs()
  local p, list = live(self), {}
  local keys, values = ffi.new("const char *[1]"), ffi.new("const char *[1]")
  for i = 0, tonumber(C.ilk_request_query_count(p)) - 1 do
    C.ilk_request_query_at(p, i, keys, values)
    list[#list + 1] = { ffi_string(keys[0]), ffi_string(values[0]) }
  end
  return list
end
function Request:metadata(key) return text(C.ilk_request_metadata(live(self), argument(key, "string", "key"))) end
function Request:state(key) return text(C.ilk_request_state(live(self), argument(key, "string", "key"))) end

local function checked(rc)
  if rc ~= OK then
    local _, message = fail(rc)
    error("interlock: " .. message, 3)
  end
  return true
end

--- Sets metadata `key` (nil removes it); the stages after this one see it.
function Request:set_metadata(key, value)
  return checked(C.ilk_request_set_metadata(live(self), argument(key, "string", "key"), optional(value, "string", "value")))
end
--- Sets state `key` (nil removes it): one map per resolve, shared by all its stages.
function Request:set_state(key, value)
  return checked(C.ilk_request_set_state(live(self), argument(key, "string", "key"), optional(value, "string", "value")))
end
function Request:set_param(name, value)
  return checked(C.ilk_request_set_param(live(self), argument(name, "string", "name"), argument(value, "string", "value")))
end
function Request:remove_param(name)
  return checked(C.ilk_request_remove_param(live(self), argument(name, "string", "name")))
end
--- For a request interceptor: `return request:abort(reason)` ends the resolve as ABORTED.
function Request:abort(reason)
  checked(C.ilk_request_set_error(live(self), argument(reason, "string", "reason")))
  return K.ILK_ABORT
end

local Response = {}
Response.__index = Response

local function response_of(pointer)
  return setmetatable({ _p = pointer }, Response)
end

function Response:status() return C.ilk_response_status(live(self)) end
function Response:set_status(status) return checked(C.ilk_response_set_status(live(self), argument(status, "number", "status"))) end
function Response:body()
  local len = ffi.new("size_t[1]")
  local body = C.ilk_response_body(live(self), len)
  return ffi_string(body, len[0])
end
function Response:set_body(body)
  body = argument(body, "string", "body")
  return checked(C.ilk_response_set_body(live(self), body, #body))
end
function Response:add_header(name, value)
  return checked(C.ilk_response_add_header(live(self), argument(name, "string", "name"), argument(value, "string", "value")))
end
function Response:clear_headers() return checked(C.ilk_response_clear_headers(live(self))) end
--- The headers: a list of {name, value}, in the order added.
function Response:headers()
  local p, list = live(self), {}
  local names, values = ffi.new("const char *[1]"), ffi.new("const char *[1]")
  for i = 0, tonumber(C.ilk_response_header_count(p)) - 1 do
    C.ilk_response_header_at(p, i, names, values)
    list[#list + 1] = { ffi_string(names[0]), ffi_string(values[0]) }
  end
  return list
end
--- For a response interceptor: `return response:abort(reason)` ends the resolve as ABORTED.
function Response:abort(reason)
  checked(C.ilk_response_set_error(live(self), argument(reason, "string", "reason")))
  return K.ILK_ABORT
end
--- For a response interceptor: `return response:retry()` runs the stages again.
function Response:retry() return K.ILK_RETRY end

local Chain = {}
Chain.__index = Chain

--- Runs the rest of the chain (later filters, the guard, the destination, response interceptors)
-- with `request`. Returns how it ended: the status's name ("OK", "STOPPED", ...) and its code.
-- Never JIT-compiled: the library calls back into Lua from here.
local function chain_next(self, request)
  local rc = C.ilk_filter_chain_next(live(self), live(request))
  return status_name[rc] or rc, rc
end
jit.off(chain_next)
Chain.next = chain_next

--- The response the rest of the chain produced (after next), which the filter may change.
function Chain:response()
  local p = C.ilk_filter_chain_response(live(self))
  return p ~= nil and response_of(p) or nil
end
--- `return chain:redirect(uri)`: the whole pipeline again for `uri`.
function Chain:redirect(uri)
  checked(C.ilk_filter_chain_redirect(live(self), argument(uri, "string", "uri")))
  return K.ILK_REDIRECT
end
--- `return chain:redirect_to(name, params)`: a redirect to a named route's URI.
function Chain:redirect_to(name, params)
  local keep = {}
  local names, values, n = name_value_arrays(optional(params, "table", "params") or {}, keep)
  checked(C.ilk_filter_chain_redirect_to_route(live(self), argument(name, "string", "name"), names, values, n))
  return K.ILK_REDIRECT
end

-- ----------------------------------------------------------------------------------------------
-- The callbacks: find the Lua function, run it under pcall (a Lua error must never unwind through
-- the library's frames), report an error to the library, keep it for resolve to raise.

local function target(userdata)
  local n = tonumber(ffi.cast("uintptr_t", userdata))
  local router = routers[floor(n / SHIFT)]
  return router, router and router._fns[n % SHIFT]
end

local function failed(err, set_error, pointer)
  local top = running[#running]
  if top and top.error == nil then top.error = err end
  set_error(pointer, "Lua error: " .. tostring(err))
  return -1
end

-- A callback's return value as the library's: nil is ILK_CONTINUE; a number (a verb the module
-- exports, interlock.STOP...) goes as it is.
local function verb(value, what)
  if value == nil then return CONTINUE end
  if type(value) == "number" then return value end
  error(("interlock: a %s returned a %s: return nothing or one of interlock's verbs"):format(what, type(value)), 0)
end

local function release(...)
  for i = 1, select("#", ...) do
    local object = select(i, ...)
    if object then object._p = nil end
  end
end

local function run_destination(request, response, userdata)
  local router, fn = target(userdata)
  local req, res = request_of(request, router), response_of(response)
  local ok, value = pcall(fn, req, res)
  release(req, res)
  if not ok then return failed(value, C.ilk_response_set_error, response) end
  if type(value) == "string" then C.ilk_response_set_body(response, value, #value) end
  return OK
end

local function run_filter(request, chain, userdata)
  local router, fn = target(userdata)
  local req, ch = request_of(request, router), setmetatable({ _p = chain }, Chain)
  local ok, value = pcall(fn, req, ch)
  if ok then ok, value = pcall(verb, value, "filter") end
  release(req, ch)
  if not ok then return failed(value, C.ilk_request_set_error, request) end
  return value
end

local function run_guard(request, userdata)
  local router, fn = target(userdata)
  local req = request_of(request, router)
  local ok, value = pcall(fn, req)
  release(req)
  if not ok then return failed(value, C.ilk_request_set_error, ffi.cast("ilk_request *", request)) end
  return value and 1 or 0
end

local function run_request_interceptor(request, userdata)
  local router, fn = target(userdata)
  local req = request_of(request, router)
  local ok, value = pcall(fn, req)
  if ok then ok, value = pcall(verb, value, "request interceptor") end
  release(req)
  if not ok then return failed(value, C.ilk_request_set_error, request) end
  return value
end

local function run_response_interceptor(request, response, userdata)
  local router, fn = target(userdata)
  local req, res = request_of(request, router), response_of(response)
  local ok, value = pcall(fn, req, res)
  if ok then ok, value = pcall(verb, value, "response interceptor") end
  release(req, res)
  if not ok then return failed(value, C.ilk_response_set_error, response) end
  return value
end

local function run_log(line, userdata)
  local _, fn = target(userdata)
  local ok, err = pcall(fn, ffi_string(line))
  if not ok then
    local top = running[#running]
    if top and top.error == nil then top.error = err end
  end
end

local callbacks = {
  destination = ffi.cast("ilk_destination_fn", run_destination),
  filter = ffi.cast("ilk_filter_fn", run_filter),
  guard = ffi.cast("ilk_guard_fn", run_guard),
  request = ffi.cast("ilk_request_interceptor_fn", run_request_interceptor),
  response = ffi.cast("ilk_response_interceptor_fn", run_response_interceptor),
  log = ffi.cast("ilk_log_fn", run_log),
}

-- ----------------------------------------------------------------------------------------------
-- Holding the Lua functions

-- A key for `fn` in this router, as the library's userdata.
function Router:_hold(fn)
  self._last_key = self._last_key + 1
  self._fns[self._last_key] = fn
  return ffi.cast("void *", self._number * SHIFT + self._last_key)
end

-- The destination callback and userdata for `fn` (nil, nil for none).
function Router:_destination(fn)
  if fn == nil then return nil, nil end
  return callbacks.destination, self:_hold(fn)
end

local function key_of(userdata)
  return tonumber(ffi.cast("uintptr_t", userdata)) % SHIFT
end

function Router:_forget_key(userdata)
  if userdata ~= nil then self._fns[key_of(userdata)] = nil end
end

-- The callback held under `userdata` belongs to route `id`: dropped with it. With `kind`
-- ("_handlers", "_guards"), it replaces the route's callback of that kind (nil userdata: none).
function Router:_own(id, userdata, kind)
  if kind then self:_replaced(kind, id, userdata ~= nil and key_of(userdata) or nil) end
  if userdata == nil then return end
  local keys = self._route_keys[id]
  if not keys then
    keys = {}
    self._route_keys[id] = keys
  end
  keys[#keys + 1] = key_of(userdata)
end

-- Drops a key now, or when the resolves of this router running now have ended (one of them may
-- still be running that function).
function Router:_drop(key)
  if self._depth > 0 then
    self._dropped[#self._dropped + 1] = key
  else
    self._fns[key] = nil
  end
end

-- Route `id`'s callback of a kind (`_handlers`, `_guards`) is now `key` (nil: none): the one it
-- replaces is dropped.
function Router:_replaced(kind, id, key)
  local keys = self[kind]
  if not keys then
    keys = {}
    self[kind] = keys
  end
  local old = keys[id]
  if old then
    self:_drop(old)
    local owned = self._route_keys[id] or {}
    for i = #owned, 1, -1 do
      if owned[i] == old then table.remove(owned, i) end
    end
  end
  keys[id] = key
end

function Router:_drop_route_keys(id)
  local keys = self._route_keys[id]
  if keys then
    for _, key in ipairs(keys) do self:_drop(key) end
    self._route_keys[id] = nil
  end
  if self._handlers then self._handlers[id] = nil end
  if self._guards then self._guards[id] = nil end
end

-- ----------------------------------------------------------------------------------------------
-- Adding stages

local function route_or_global(self, route)
  if route == nil or route == 0 then return 0 end
  return self:_route(route)
end

--- Sets (or, with nil, removes) the destination of a route (its id or name), e.g. a loaded one.
-- `fn(request, response)` may return a string: the body. Returns true, or nil, message, offset, code.
function Router:set_handler(route, fn)
  local id, message, offset, code = self:_route(route)
  if not id then return nil, message, offset, code end
  argument(fn, "function", "fn")
  local userdata = self:_hold(fn)
  local rc = C.ilk_router_set_destination(self._h, id, callbacks.destination, userdata, nil)
  if rc ~= OK then
    self:_forget_key(userdata)
    return fail(rc)
  end
  self:_own(id, userdata, "_handlers")
  return true
end

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
function Router:set_guard(route, fn)
  local id, message, offset, code = self:_route(route)
  if not id then return nil, message, offset, code end
  optional(fn, "function", "fn")
  local userdata = fn and self:_hold(fn) or nil
  local rc = C.ilk_router_set_guard(self._h, id, fn and callbacks.guard or nil, userdata, nil)
  if rc ~= OK then
    self:_forget_key(userdata)
    return fail(rc)
  end
  self:_own(id, userdata, "_guards")
  return true
end

--- Appends a filter `fn(request, chain)` to the global chain. It continues with
-- `chain:next(request)` (then returns nothing), stops with `return interlock.STOP`, or
-- redirects with `return chain:redirect(uri)` / `chain:redirect_to(name, params)`.
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
  argument(uri, "string", "uri")
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
  Request = Request,
  Response = Response,
}
