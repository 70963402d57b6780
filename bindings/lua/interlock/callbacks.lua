-- The library's callbacks, one FFI callback per kind (destination, filter, guard, request and
-- response interceptor, log line), made once when the module loads, whatever the number of
-- routers and routes: LuaJIT has a fixed number of callback slots. The library's userdata says
-- which Lua function to run: the router's number times 2^32 plus a key in the router's `_fns`.
-- No free function is given to the library (it never calls back to free, so no finalizer calls
-- into Lua): the router holds its functions, drops a removed or replaced one once no resolve of
-- the router runs, and lets them all go with itself.
local ffi = require "ffi"
local native = require "interlock.native"
local router_module = require "interlock.router"
local values = require "interlock.values"

local C, K = native.C, native.K
local Router, routers = router_module.Router, router_module.routers
local request_of, response_of, Chain = values.request_of, values.response_of, values.Chain
local OK, CONTINUE, STOP = K.ILK_OK, K.ILK_CONTINUE, K.ILK_STOP
local ffi_string, tonumber, type, floor = ffi.string, tonumber, type, math.floor
local SHIFT = 2 ^ 32

-- The resolves under way, innermost last (a callback may resolve again): each the first Lua
-- error a callback raised, re-raised by its resolve once the library returns.
local running = {}

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
-- exports, interlock.STOP...) goes as it is. `also` completes the message of a wrong value.
local function verb(value, what, also)
  if value == nil then return CONTINUE end
  if type(value) == "number" then return value end
  error(("interlock: a %s returned a %s: return nothing%s or one of interlock's verbs"):format(what, type(value), also or ""), 0)
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

-- Runs a stage `fn(req, second)` (`fn(req)` without `second`) whose return value is a verb; what
-- it was lent goes stale after. An error goes to the library through `set_error(pointer, ...)`.
local function run_stage(what, set_error, pointer, fn, req, second)
  local ok, value
  if second then ok, value = pcall(fn, req, second) else ok, value = pcall(fn, req) end
  if ok then ok, value = pcall(verb, value, what) end
  release(req, second)
  if not ok then return failed(value, set_error, pointer) end
  return value
end

-- A filter returns a verb, or a string, as a destination does: a stop answering with that body
-- (written to the chain's response, where it may have set a status and headers).
local function run_filter(request, chain, userdata)
  local router, fn = target(userdata)
  local req, lent = request_of(request, router), setmetatable({ _p = chain }, Chain)
  local ok, value = pcall(fn, req, lent)
  if ok and type(value) == "string" then
    if lent._called then
      ok, value = false, "interlock: a filter that called chain:next returned a string: return what next gave, "
        .. "or nothing, and change chain:response() to change the body"
    else
      C.ilk_response_set_body(C.ilk_filter_chain_response(chain), value, #value)
      value = STOP
    end
  elseif ok then
    ok, value = pcall(verb, value, "filter", ", a string (a stop's body)")
  end
  release(req, lent, lent._res)
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
  return run_stage("request interceptor", C.ilk_request_set_error, request, fn, request_of(request, router))
end

local function run_response_interceptor(request, response, userdata)
  local router, fn = target(userdata)
  return run_stage("response interceptor", C.ilk_response_set_error, response, fn, request_of(request, router),
                   response_of(response))
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

return {
  callbacks = callbacks,
  running = running,
  key_of = key_of,
}
