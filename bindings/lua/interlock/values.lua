-- What callbacks see: the library's request, response and filter chain as Lua objects, valid
-- during the call only (the library reuses them afterwards: used later they raise). A resolve's
-- result holds a request that lives as long as the result.
local ffi = require "ffi"
local native = require "interlock.native"
local router_module = require "interlock.router"

local C, K, fail, status_name = native.C, native.K, native.fail, native.status_name
local argument, optional = router_module.argument, router_module.optional
local name_value_arrays = router_module.Router._name_value_arrays
local OK = K.ILK_OK
local ffi_string, tonumber = ffi.string, tonumber

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
  if p == nil then error("interlock: a callback's request, response or chain is used after its callback returned", 3) end
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
  local lengths = ffi.new("size_t[2]")
  for i = 0, tonumber(C.ilk_request_param_count(p)) - 1 do
    C.ilk_request_param_at(p, i, names, lengths, values, lengths + 1)
    t[ffi_string(names[0], lengths[0])] = ffi_string(values[0], lengths[1])
  end
  return t
end
-- The pairs `at` reads from `p` (the library's *_count and *_at functions): a list of {name, value}.
local function pair_list(p, count, at)
  local list = {}
  local names, values = ffi.new("const char *[1]"), ffi.new("const char *[1]")
  for i = 0, tonumber(count(p)) - 1 do
    at(p, i, names, values)
    list[#list + 1] = { ffi_string(names[0]), ffi_string(values[0]) }
  end
  return list
end
--- The first value of query key `key`, or nil.
function Request:query(key) return text(C.ilk_request_query(live(self), argument(key, "string", "key"))) end
--- Every query pair, in order: a list of {key, value}.
function Request:query_pairs() return pair_list(live(self), C.ilk_request_query_count, C.ilk_request_query_at) end
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
  body = argument(body, "bytes", "body")
  return checked(C.ilk_response_set_body(live(self), body, #body))
end
function Response:add_header(name, value)
  return checked(C.ilk_response_add_header(live(self), argument(name, "string", "name"), argument(value, "string", "value")))
end
function Response:clear_headers() return checked(C.ilk_response_clear_headers(live(self))) end
--- The headers: a list of {name, value}, in the order added.
function Response:headers() return pair_list(live(self), C.ilk_response_header_count, C.ilk_response_header_at) end
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
  self._called = true
  return status_name[rc] or rc, rc
end
jit.off(chain_next)
Chain.next = chain_next

--- After next, the response the rest of the chain produced, which the filter may change; before
-- it, the response a filter that stops answers with (a 401, a cached page), empty until written.
-- One object for the filter's call, before next and after it; stale once the filter returns.
function Chain:response()
  local chain = live(self)
  if self._res then return self._res end
  local p = C.ilk_filter_chain_response(chain)
  if p == nil then return nil end
  self._res = response_of(p)
  return self._res
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

return {
  Request = Request,
  Response = Response,
  Chain = Chain,
  request_of = request_of,
  response_of = response_of,
  text = text,
}
