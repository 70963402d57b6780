-- The router: its routes (add, remove, replace, route files), the fast path (match: no callback,
-- no garbage per lookup when given a table to fill), URLs and explanations. The pipeline's
-- methods (resolve, filters, guards, interceptors) are added by interlock/pipeline.lua, and the
-- holding of callbacks by interlock/callbacks.lua.
local ffi = require "ffi"
local native = require "interlock.native"
local bit = require "bit"

local C, K, fail = native.C, native.K, native.fail
local OK, NOT_FOUND, METHOD_NOT_ALLOWED = K.ILK_OK, K.ILK_NOT_FOUND, K.ILK_METHOD_NOT_ALLOWED
local EINVAL, ELIMIT = K.ILK_EINVAL, K.ILK_ELIMIT
local ffi_string, type, error, tonumber = ffi.string, type, error, tonumber

local ok_clear, clear = pcall(require, "table.clear")   -- LuaJIT 2.1
if not ok_clear then
  clear = function(t) for k in pairs(t) do t[k] = nil end end
end

-- Out-parameters shared by every call (a lookup never runs two at once on one Lua state).
local name_p, value_p = ffi.new("const char *[1]"), ffi.new("const char *[1]")
local id_p, count_p, length_p = ffi.new("uint32_t[1]"), ffi.new("size_t[1]"), ffi.new("size_t[1]")

local Router = {}
Router.__index = Router

-- Routers by number: a callback's userdata names its router by this number (interlock/pipeline.lua).
-- Weak: a router that nothing else holds is collected, and its handle freed (ffi.gc).
local routers = setmetatable({}, { __mode = "v" })
local last_number = 0

-- Checks an argument's type, raising an error that names it. A "string" goes to the library as a
-- C string, which would end at a NUL byte: one that holds a NUL is refused (raised, with its
-- offset), never cut short. "bytes" is a string the library gets with its length (a URI, a route
-- file, a body): NUL bytes go to the library, which judges them.
local function argument(value, kind, what, level)
  local want = kind == "bytes" and "string" or kind
  if type(value) ~= want then
    error(("interlock: %s must be a %s, not %s"):format(what, want, type(value)), level or 3)
  end
  if kind == "string" then
    local nul = value:find("\0", 1, true)
    if nul then error(("interlock: %s holds a NUL byte (at byte %d)"):format(what, nul - 1), level or 3) end
  end
  return value
end

local function optional(value, kind, what)
  if value ~= nil then argument(value, kind, what, 4) end
  return value
end

--- Makes a router. `options` (may be nil): `case_insensitive`, `strict_slash` (booleans).
-- Returns the router, or nil, message, offset, code.
local function new(options)
  options = optional(options, "table", "options") or {}
  local flags = 0
  if options.case_insensitive then flags = bit.bor(flags, K.ILK_CASE_INSENSITIVE) end
  if options.strict_slash then flags = bit.bor(flags, K.ILK_STRICT_SLASH) end
  local out = ffi.new("ilk_router *[1]")
  local rc = C.ilk_router_new(out, flags)
  if rc ~= OK then return fail(rc) end
  local handle = ffi.gc(out[0], C.ilk_router_free)
  local match_out = ffi.new("ilk_match *[1]")
  rc = C.ilk_match_new(match_out)
  if rc ~= OK then return fail(rc) end
  last_number = last_number + 1
  local self = setmetatable({
    _h = handle,
    _m = ffi.gc(match_out[0], C.ilk_match_free),  -- valid past the router: freed on its own
    _number = last_number,
    _data = {},          -- route id -> the host's data (a Lua value, or a loaded route's values)
    _names = {},         -- route id -> its name, or false: read once from the library
    _fns = {},           -- callback key -> Lua function (interlock/pipeline.lua)
    _route_keys = {},    -- route id -> the keys of its callbacks, dropped with the route
    _last_key = 0,
    _last_id = 0,        -- the highest route id the library gave this router
    _depth = 0,          -- resolves running on this router (callbacks dropped meanwhile wait)
    _dropped = {},
  }, Router)
  routers[last_number] = self
  return self
end

-- The route an argument names: its id (a number) or its name (a string). Returns the id, or
-- nil, message, offset, code.
function Router:_route(route)
  if type(route) == "number" then return route end
  argument(route, "string", "route (an id or a name)", 4)
  local rc = C.ilk_router_route_id(self._h, route, id_p)
  if rc ~= OK then return fail(rc) end
  return id_p[0]
end

-- A method whose first argument is a route (its id or name): `fn(self, id, ...)` with the route's
-- id; a route the library does not know answers nil, message, offset, code. (A tail call: an
-- argument error in `fn` still points at the method's caller.)
local function with_route(fn)
  return function(self, route, ...)
    local id, message, offset, code = self:_route(route)
    if not id then return nil, message, offset, code end
    return fn(self, id, ...)
  end
end
Router._with_route = with_route

-- After the library gave ids up to `id`.
function Router:_gave(id)
  if id > self._last_id then self._last_id = id end
end

--- Adds a route. `options` is a function (the destination) or a table: `name`, `data` (any Lua
-- value, returned by match), `handler` (the destination), `guard`. Returns the route's id, or
-- nil, message, offset, code (EPATTERN with the byte offset in the pattern, ECONFLICT...).
function Router:add_route(pattern, options)
  argument(pattern, "string", "pattern")
  if type(options) == "function" then options = { handler = options } end
  options = optional(options, "table", "options") or {}
  local name = optional(options.name, "string", "options.name")
  optional(options.handler, "function", "options.handler")
  optional(options.guard, "function", "options.guard")
  local destination, userdata = self:_destination(options.handler)
  local rc
  if name then
    rc = C.ilk_router_add_named_route(self._h, pattern, name, destination, userdata, nil, id_p)
  else
    rc = C.ilk_router_add_route(self._h, pattern, destination, userdata, nil, id_p)
  end
  if rc ~= OK then
    local _, message, offset, code = fail(rc)
    self:_forget_key(userdata)
    return nil, message, offset, code
  end
  local id = id_p[0]
  self:_gave(id)
  self:_own(id, userdata, "_handlers")
  self._data[id] = options.data
  if options.guard then
    local ok, message, offset, code = self:set_guard(id, options.guard)
    if not ok then
      self:remove_route(id)
      return nil, message, offset, code
    end
  end
  return id
end

--- Removes a route (its id or name): lookups no longer find it, its id is never given again.
-- Returns true, or nil, message, offset, code (ENOROUTE).
Router.remove_route = with_route(function(self, id)
  local rc = C.ilk_router_remove_route(self._h, id)
  if rc ~= OK then return fail(rc) end
  self._data[id], self._names[id] = nil, nil
  self:_drop_route_keys(id)
  return true
end)

--- Gives a route (its id or name) a new pattern, keeping its id, name, callbacks and data.
-- Returns true, or nil, message, offset, code.
Router.replace_route = with_route(function(self, id, pattern)
  argument(pattern, "string", "pattern")
  local rc = C.ilk_router_replace_route(self._h, id, pattern)
  if rc ~= OK then return fail(rc) end
  return true
end)

--- Sets a route's data (any Lua value; nil clears it). Returns true, or nil, message, offset, code.
Router.set_data = with_route(function(self, id, data)
  if C.ilk_router_route_pattern(self._h, id, name_p) ~= OK then return fail(K.ILK_ENOROUTE) end
  self._data[id] = data
  return true
end)

-- The values of a loaded route (its key=value pairs), read from the library by key when asked:
-- the C interface reads them one key at a time and cannot list them.
local function loaded_values(router, id)
  return setmetatable({}, {
    __index = function(_, key)
      if type(key) ~= "string" then return nil end
      local value = C.ilk_router_route_value(router._h, id, key)
      if value == nil then return nil end
      return ffi_string(value)
    end,
    __newindex = function() error("interlock: a loaded route's values are read-only (use set_data)", 2) end,
  })
end

--- Adds every route of a route file's text (one route a line, `[METHOD ]pattern name=... key=value`),
-- all or none. Returns the list of the new routes' ids, or nil, message ("line L, column C: ..."),
-- offset (in `text`), code. A loaded route's data reads its key=value pairs: `data.owner`.
function Router:load(text)
  argument(text, "bytes", "text")
  local rc = C.ilk_router_load(self._h, text, #text, count_p)
  if rc ~= OK then return fail(rc) end
  -- The library gives a file's routes the next ids, in order (ids are given one after the other).
  local ids, first = {}, self._last_id
  for i = 1, tonumber(count_p[0]) do
    local id = first + i
    ids[i] = id
    self._data[id] = loaded_values(self, id)
  end
  self:_gave(first + #ids)
  return ids
end

--- `load` on a file's contents. Errors say the file: "PATH: line L, column C: ...".
function Router:load_file(path)
  argument(path, "bytes", "path")
  local file, open_error = io.open(path, "rb")
  if not file then return nil, open_error end
  local text = file:read("*a")
  file:close()
  local ids, message, offset, code = self:load(text)
  if not ids then return nil, path .. ": " .. message, offset, code end
  return ids
end

--- The route's name (nil if it has none), or nil, message, offset, code for an unknown route.
function Router:route_name(id)
  local name = self._names[id]
  if name ~= nil then return name or nil end
  argument(id, "number", "route id")
  local rc = C.ilk_router_route_name(self._h, id, name_p)
  if rc ~= OK then return fail(rc) end
  name = name_p[0] ~= nil and ffi_string(name_p[0]) or false
  self._names[id] = name
  return name or nil
end

--- The route's pattern, or nil, message, offset, code.
Router.route_pattern = with_route(function(self, id)
  local rc = C.ilk_router_route_pattern(self._h, id, name_p)
  if rc ~= OK then return fail(rc) end
  return ffi_string(name_p[0])
end)

--- The id of the route called `name`, or nil, message, offset, code.
function Router:route_id(name)
  argument(name, "string", "name")
  return self:_route(name)
end

--- The number of routes (removed ones left out).
function Router:count()
  return tonumber(C.ilk_router_route_count(self._h))
end

--- Iterates over the routes in id order: `for id, pattern, name in router:routes() do`.
function Router:routes()
  local after = 0
  return function()
    if C.ilk_router_next_route(self._h, after, id_p) ~= OK then return nil end
    after = id_p[0]
    return after, self:route_pattern(after), self:route_name(after)
  end
end

--- Compiles what changed now, so that the next lookup does not pay for it. true, or nil, message...
function Router:compile()
  local rc = C.ilk_router_compile(self._h)
  if rc ~= OK then return fail(rc) end
  return true
end

--- Bounds the backtracking steps of each regex a lookup runs (0: the library's default).
function Router:set_match_limit(limit)
  local rc = C.ilk_router_set_match_limit(self._h, argument(limit, "number", "limit"))
  if rc ~= OK then return fail(rc) end
  return true
end



-- The parameters of the last lookup into `t` (cleared first): name = value. Reads the count
-- first: ilk_match_param_at past the last one is an error, which costs the library a message.
-- The first three are read without a loop: an inner loop would keep LuaJIT from compiling the
-- caller's loop of lookups into one trace.
local function fill(m, t)
  clear(t)
  local n = tonumber(C.ilk_match_param_count(m))
  if n == 0 then return t end
  C.ilk_match_param_at(m, 0, name_p, nil, value_p, nil)
  t[ffi_string(name_p[0])] = ffi_string(value_p[0])
  if n == 1 then return t end
  C.ilk_match_param_at(m, 1, name_p, nil, value_p, nil)
  t[ffi_string(name_p[0])] = ffi_string(value_p[0])
  if n == 2 then return t end
  C.ilk_match_param_at(m, 2, name_p, nil, value_p, nil)
  t[ffi_string(name_p[0])] = ffi_string(value_p[0])
  for i = 3, n - 1 do
    C.ilk_match_param_at(m, i, name_p, nil, value_p, nil)
    t[ffi_string(name_p[0])] = ffi_string(value_p[0])
  end
  return t
end

local function allowed(m)
  local list = {}
  for i = 1, tonumber(C.ilk_match_allowed_count(m)) do
    list[i] = ffi_string(C.ilk_match_allowed_at(m, i - 1))
  end
  return table.concat(list, ", ")
end

--- Looks `uri` up under `method` (nil or "": any method). No callback runs.
-- Matched: the route's id, its data, and the parameters: `params` (a table the caller gives, which
-- is cleared and filled; then nothing is allocated but the values' strings), a new table when
-- `params` is nil, none when it is false (read them with router:param(name)).
-- A miss: nil, "not found"; or nil, "method not allowed", "GET, POST" (the Allow header's value).
-- A malformed URI or method: nil, message, offset, code (EURI, EINVAL), offset in the URI.
function Router:match(uri, method, params)
  if type(uri) ~= "string" then argument(uri, "bytes", "uri") end
  if method ~= nil and (type(method) ~= "string" or method:find("\0", 1, true)) then argument(method, "string", "method") end
  local m = self._m
  local rc = C.ilk_router_match(self._h, method, uri, #uri, m)
  if rc == OK then
    local id = C.ilk_match_route_id(m)
    if params ~= false then
      params = fill(m, params or {})
    end
    return id, self._data[id], params
  elseif rc == NOT_FOUND then
    return nil, "not found"
  elseif rc == METHOD_NOT_ALLOWED then
    return nil, "method not allowed", allowed(m)
  end
  return fail(rc)
end

--- The value of parameter `name` of the last match on this router, or nil. Valid until the next.
function Router:param(name)
  if C.ilk_match_param(self._m, argument(name, "string", "name"), value_p, nil) ~= OK then return nil end
  return ffi_string(value_p[0])
end

--- The parameters of the last match into `t` (a new table if nil).
function Router:params(t)
  return fill(self._m, t or {})
end

-- Name and value arrays for the C calls that take parameters; `keep` anchors the strings.
local function name_value_arrays(params, keep)
  local n = 0
  for _ in pairs(params) do n = n + 1 end
  local names, values = ffi.new("const char *[?]", n + 1), ffi.new("const char *[?]", n + 1)
  local i = 0
  for k, v in pairs(params) do
    argument(k, "string", "a parameter's name", 4)
    v = argument(tostring(v), "string", "parameter " .. k, 4)
    keep[#keep + 1] = v
    names[i], values[i] = k, v
    i = i + 1
  end
  return names, values, n
end
Router._name_value_arrays = name_value_arrays

local buffer_size = 512
local buffer = ffi.new("char[?]", buffer_size)

-- The text `write(buffer, size, length_p)` writes (a library call), in the shared buffer, grown
-- while the call answers `short` with a longer length. The text, or nil, message, offset, code.
local function into_buffer(short, write)
  while true do
    local rc = write(buffer, buffer_size, length_p)
    if rc == OK then return ffi_string(buffer, length_p[0]) end
    if rc ~= short or length_p[0] < buffer_size then return fail(rc) end
    buffer_size = tonumber(length_p[0]) + 1
    buffer = ffi.new("char[?]", buffer_size)
  end
end

--- The URI of the route called `name`, from `params` (name = value; values are encoded and checked
-- against their constraints). Returns the URI, or nil, message, offset, code.
function Router:url_for(name, params)
  argument(name, "string", "name")
  params = optional(params, "table", "params") or {}
  local keep = {}
  local names, values, n = name_value_arrays(params, keep)
  local text, message, offset, code = into_buffer(EINVAL, function(into, size, length)
    return C.ilk_router_url_for(self._h, name, names, values, n, into, size, length)
  end)
  -- Not a tail call: until here `keep` holds the texts `values` points to.
  if text == nil then return nil, message, offset, code end
  return text
end

--- Why `uri` goes where it goes under `method`: the library's explanation, a JSON text
-- ({"answer", "reason", "candidates": [...], "truncated"}; cjson.decode reads it).
-- Returns the text, or nil, message, offset, code.
function Router:explain(uri, method)
  argument(uri, "bytes", "uri")
  optional(method, "string", "method")
  return into_buffer(ELIMIT, function(into, size, length)
    return C.ilk_router_explain(self._h, method, uri, #uri, into, size, length)
  end)
end

return {
  new = new,
  Router = Router,
  routers = routers,
  argument = argument,
  optional = optional,
}
