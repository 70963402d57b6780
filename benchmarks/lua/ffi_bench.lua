-- Lookups from LuaJIT through the FFI, against the C door on the same table, in one process.
-- Usage: luajit benchmarks/lua/ffi_bench.lua C_PASS_SO ROUTES REQUESTS TABLE [seconds-per-batch]
-- (the tables as benchmarks/tables.py writes them). Three doors, timed in turn batch by batch
-- (seven batches), each doing the C door's work for every request: the lookup under the
-- request's method, the route's id, every parameter's name and value, their lengths summed:
--   "C ilk_router_match (called from LuaJIT)": benchmarks/lua/c_pass.c, one FFI call a pass;
--   "LuaJIT FFI ilk_router_match": the same C calls, each made from Lua (the FFI's own cost);
--   "LuaJIT interlock match": the module's router:match into a reused params table (Lua strings),
--   then each of the route's parameters read by name, as a handler reads them (its names noted
--   from the route's pattern when the harness added it: LuaJIT 2.1 does not compile pairs()).
-- Prints one JSON line a door (run.py reads them): ns per lookup of each batch, the sums of one
-- pass, the answers checked, and each LuaJIT door's batch ratios to the C door.
local ffi = require "ffi"
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or "."
package.path = here .. "/../../bindings/lua/?.lua;" .. package.path
local interlock = require "interlock"
local native = require "interlock.native"
local C = native.C

local so, routes_path, requests_path, table_name, seconds = arg[1], arg[2], arg[3], arg[4], tonumber(arg[5] or "0.2")

ffi.cdef [[
unsigned long long ilkbench_c_pass(ilk_router *router, ilk_match *m, const char *const *methods,
                                   const char *const *uris, int count, unsigned long long *param_bytes);
typedef struct { long tv_sec; long tv_nsec; } ilkbench_timespec;
int clock_gettime(int clock, ilkbench_timespec *ts);
]]
local cpass = ffi.load(so)
local ts = ffi.new("ilkbench_timespec")
-- The thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not the wall clock: on a machine shared with
-- other work, a batch's wall time counts the time others ran, the CPU time only this one's.
local function now()
  ffi.C.clock_gettime(3, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local router = assert(interlock.new())
for line in io.lines(routes_path) do
  local method, pattern = line:match("^(%S+)%s+(%S+)")
  if method then assert(router:add_route(method == "-" and pattern or (method .. " " .. pattern))) end
end
assert(router:compile())

-- The requests, checked: each answers its expected route (0: none), a malformed one an error.
local methods, uris, wrong, checked = {}, {}, 0, 0
local names_at = {}   -- request -> the names of the parameters its match binds
for line in io.lines(requests_path) do
  local method, uri, expected = line:match("^(%S+)%s+(%S+)%s+(%S+)")
  if method then
    method = method ~= "-" and method or nil
    local id, err, params, code = router:match(uri, method)
    checked = checked + 1
    if expected == "bad" then
      if code ~= "EURI" then wrong = wrong + 1 end
    else
      if (id or 0) ~= tonumber(expected) then
        wrong = wrong + 1
        io.stderr:write(("wrong: %s %s -> %s %s, want %s\n"):format(tostring(method), uri, tostring(id), tostring(err), expected))
      end
      methods[#methods + 1], uris[#uris + 1] = method, uri
      -- The names the request binds (a route with optional parts binds some of its names only).
      local names = {}
      for name in pairs(id and params or {}) do names[#names + 1] = name end
      names_at[#uris] = names
    end
  end
end
local n = #uris
if wrong > 0 then
  io.stderr:write(wrong .. " wrong answers\n")
  os.exit(1)
end

local c_methods, c_uris = ffi.new("const char *[?]", n), ffi.new("const char *[?]", n)
for i = 1, n do c_methods[i - 1], c_uris[i - 1] = methods[i], uris[i] end   -- anchored by the Lua lists
local c_bytes = ffi.new("unsigned long long[1]")
local h, m = router._h, router._m

local sum_routes, sum_bytes = 0, 0

local function c_door()
  sum_routes = sum_routes + tonumber(cpass.ilkbench_c_pass(h, m, c_methods, c_uris, n, c_bytes))
  sum_bytes = tonumber(c_bytes[0])
end

local np, vp = ffi.new("const char *[1]"), ffi.new("const char *[1]")
local nl, vl = ffi.new("size_t[1]"), ffi.new("size_t[1]")
local function ffi_door()
  local routes, bytes = 0, 0
  for k = 1, n do
    local uri = uris[k]
    if C.ilk_router_match(h, methods[k], uri, #uri, m) == 0 then
      for i = 0, tonumber(C.ilk_match_param_count(m)) - 1 do
        C.ilk_match_param_at(m, i, np, nl, vp, vl)
        bytes = bytes + tonumber(nl[0]) + tonumber(vl[0])
      end
      routes = routes + C.ilk_match_route_id(m)
    end
  end
  sum_routes, sum_bytes = sum_routes + routes, sum_bytes + bytes
end

local params = {}
local function module_door()
  local routes, bytes = 0, 0
  for k = 1, n do
    local id = router:match(uris[k], methods[k], params)
    if id then
      -- Up to four by name without a loop (an inner loop keeps LuaJIT from compiling this
      -- loop into one trace), then the rest.
      local names = names_at[k]
      local a, b, c, d = names[1], names[2], names[3], names[4]
      if a then
        bytes = bytes + #a + #params[a]
        if b then
          bytes = bytes + #b + #params[b]
          if c then
            bytes = bytes + #c + #params[c]
            if d then
              bytes = bytes + #d + #params[d]
              for i = 5, #names do bytes = bytes + #names[i] + #params[names[i]] end
            end
          end
        end
      end
      routes = routes + id
    end
  end
  sum_routes, sum_bytes = sum_routes + routes, sum_bytes + bytes
end

local doors = {
  { name = "C ilk_router_match (called from LuaJIT)", pass = c_door },
  { name = "LuaJIT FFI ilk_router_match", pass = ffi_door },
  { name = "LuaJIT interlock match", pass = module_door },
}

-- One pass's sums (the C door's byte count is its running total: reset it around the pass).
for _, d in ipairs(doors) do
  sum_routes, sum_bytes = 0, 0
  c_bytes[0] = 0
  d.pass()
  d.route_sum, d.param_bytes = sum_routes, sum_bytes
end

-- Each door's batch loop is a function of its own (its own bytecode, compiled on its own): one
-- loop calling every door's pass in turn would be compiled for the first door's and run the
-- others through side exits, slower.
local runner_source = "local pass = ...; return function(passes) for _ = 1, passes do pass() end end"
for _, d in ipairs(doors) do
  d.run = assert(load(runner_source, "=batch loop of " .. d.name))(d.pass)
end

-- Passes per batch from a timed pass after warm-up ones (the JIT compiles the loops).
for _, d in ipairs(doors) do
  d.run(20)
  local t0 = now()
  d.pass()
  local one = now() - t0
  d.passes = one > 0 and math.floor(seconds / one) + 1 or 1
  d.ns = {}
end
local BATCHES = 7
for b = 1, BATCHES do
  for _, d in ipairs(doors) do
    local t0 = now()
    d.run(d.passes)
    d.ns[b] = (now() - t0) / (d.passes * n) * 1e9
  end
end

local function numbers(list, format)
  local out = {}
  for i, x in ipairs(list) do out[i] = (format or "%.2f"):format(x) end
  return "[" .. table.concat(out, ", ") .. "]"
end

local base = doors[1]
for i, d in ipairs(doors) do
  local extra = ""
  if i > 1 then
    local ratios = {}
    for b = 1, BATCHES do ratios[b] = d.ns[b] / base.ns[b] end
    extra = (', "ratios_to": {"%s": %s}'):format(base.name, numbers(ratios, "%.4f"))
  end
  print(('{"door": "%s", "table": "%s", "lookups_per_batch": %d, "ns": %s, "route_sum": %d, "param_bytes": %d, ' ..
    '"checked": %d, "wrong": 0, "clock": "thread CPU time", "jit": "%s"%s}'):format(d.name, table_name, d.passes * n, numbers(d.ns),
    d.route_sum, d.param_bytes, checked, jit.version, extra))
end
