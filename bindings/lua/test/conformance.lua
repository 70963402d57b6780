-- The conformance suite (spec/conformance/*.json, described in its README.md) through the Lua
-- module: every table's lookups, url_for and explain cases, every refused pattern and conflict,
-- and every pipeline scenario. The same data runs through Swift, C, Python and Node.
local cjson = require "cjson"
local check = require "check"
local interlock = require "interlock"

local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or "."
local spec = here .. "/../../../spec/conformance"

local function files()
  local list = {}
  local ls = assert(io.popen(('ls "%s"'):format(spec)))
  for name in ls:lines() do
    if name:match("%.json$") then list[#list + 1] = name end
  end
  ls:close()
  assert(#list > 0, "no conformance data under " .. spec)
  return list
end

local function read(name)
  local f = assert(io.open(spec .. "/" .. name, "rb"))
  local data = cjson.decode(f:read("*a"))
  f:close()
  return data
end

-- Every entry of a section across the files, with where it comes from.
local function entries(section)
  local out = {}
  for _, name in ipairs(files()) do
    local list = read(name)[section]
    if list ~= nil and list ~= cjson.null then
      for i, entry in ipairs(list) do out[#out + 1] = { where = ("%s %s[%d]"):format(name, section, i - 1), case = entry } end
    end
  end
  return out
end

local function opt(value) if value == cjson.null then return nil end return value end

local function router_for(table_)
  local options = opt(table_.options) or {}
  local r = assert(interlock.new({ case_insensitive = options.case_insensitive, strict_slash = options.strict_slash }))
  local ids = {}
  for i, route in ipairs(table_.routes) do
    if type(route) == "string" then
      ids[i] = assert(r:add_route(route))
    else
      ids[i] = assert(r:add_route(route.pattern, { name = opt(route.name) }))
    end
  end
  return r, ids
end

local function sorted(list)
  local copy = {}
  for i, v in ipairs(list) do copy[i] = v end
  table.sort(copy)
  return copy
end

local function split_allow(text)
  local list = {}
  for method in text:gmatch("[^, ]+") do list[#list + 1] = method end
  return sorted(list)
end

local function run_match(where, r, ids, c)
  local want = opt(c.status) or "OK"
  local id, a, b, code = r:match(c.uri, opt(c.method))
  local label = ("%s: %s %s"):format(where, opt(c.method) or "", c.uri)
  if id then
    check.eq("OK", want, label)
    check.eq(id, ids[c.route + 1], label .. " route")
    if opt(c.params) then check.same(b, c.params, label .. " params") end
  elseif a == "not found" then
    check.eq("NOT_FOUND", want, label)
  elseif a == "method not allowed" then
    check.eq("METHOD_NOT_ALLOWED", want, label)
    if opt(c.allowed) then check.same(split_allow(b), sorted(c.allowed), label .. " allowed") end
  else
    check.eq(code, want, label .. ": " .. tostring(a))
    if opt(c.offset) then check.eq(b, c.offset, label .. " offset") end
  end
end

local function run_table(where, t)
  local r, ids = router_for(t)
  where = ("%s %s (%s)"):format(where, t.name, t.rule)
  for _, c in ipairs(opt(t.match) or {}) do run_match(where, r, ids, c) end
  for _, c in ipairs(opt(t.url_for) or {}) do
    local name = t.routes[c.route + 1].name
    local uri, message, _, code = r:url_for(name, c.params)
    if opt(c.uri) then
      check.eq(uri, c.uri, where .. ": url_for " .. name .. ": " .. tostring(message))
    else
      check.eq(code, c.status, where .. ": url_for " .. name)
    end
  end
  for _, c in ipairs(opt(t.explain) or {}) do
    local explained = cjson.decode(assert(r:explain(c.uri, opt(c.method))))
    local winner = opt(c.winner) and ids[c.winner + 1] or nil
    check.eq(opt(explained.answer.route), winner, where .. ": explain " .. c.uri)
    local takers = {}
    for _, candidate in ipairs(explained.candidates) do
      if candidate.takes then takers[#takers + 1] = candidate.route end
    end
    check.same(takers, winner and { winner } or {}, where .. ": explain " .. c.uri .. " lists the taker")
  end
end

-- Pipeline scenarios: every callback records "kind:name" when it runs, then does what `do` says.
local function run_pipeline(where, c)
  local ran = {}
  local function record(kind, name) ran[#ran + 1] = kind .. ":" .. name end
  local r = assert(interlock.new())
  local function request_interceptor(s)
    return function(req)
      record("request", s.name)
      if s["do"] == "abort" then return req:abort(s.name .. " aborts") end
    end
  end
  local function response_interceptor(s)
    return function(req, res)
      record("response", s.name)
      if s["do"] == "abort" then return res:abort(s.name .. " aborts") end
      local key = "retried:" .. s.name
      if s["do"] == "retry" or (s["do"] == "retry_once" and req:state(key) == nil) then
        req:set_state(key, "1")
        return res:retry()
      end
    end
  end
  local ids = {}
  for i, route in ipairs(c.routes) do
    local name = route.name
    local guard
    if opt(route.guard) then
      local allow = route.guard == "allow"
      guard = function() record("guard", name); return allow end
    end
    ids[i] = assert(r:add_route(route.pattern, { name = name, guard = guard,
      handler = function() record("destination", name) end }))
    for _, s in ipairs(opt(route.request_interceptors) or {}) do
      assert(r:add_request_interceptor(request_interceptor(s), ids[i], s.name))
    end
    for _, s in ipairs(opt(route.response_interceptors) or {}) do
      assert(r:add_response_interceptor(response_interceptor(s), ids[i], s.name))
    end
  end
  if opt(c.default) then assert(r:set_default(function() record("destination", "default") end)) end
  for _, s in ipairs(opt(c.filters) or {}) do
    assert(r:add_filter(function(req, chain)
      record("filter", s.name)
      if s["do"] == "next" or (opt(s.when) and s.when ~= req:path()) then
        chain:next(req)
        return
      end
      if s["do"] == "stop" then
        local answer = opt(s.respond)
        if answer then
          local res = chain:response()
          res:set_status(answer.status)
          for _, h in ipairs(answer.headers) do res:add_header(h[1], h[2]) end
          res:set_body(answer.body)
        end
        return interlock.STOP
      end
      return chain:redirect(s.to)
    end, s.name))
  end
  for _, s in ipairs(opt(c.request_interceptors) or {}) do assert(r:add_request_interceptor(request_interceptor(s), nil, s.name)) end
  for _, s in ipairs(opt(c.response_interceptors) or {}) do assert(r:add_response_interceptor(response_interceptor(s), nil, s.name)) end
  for _, step in ipairs(c.resolve) do
    for k in pairs(ran) do ran[k] = nil end
    local label = ("%s %s: %s (%s)"):format(where, c.name, step.uri, c.rule)
    local result = assert(r:resolve(step.uri, opt(step.method)))
    check.eq(result.status, step.status, label .. ": " .. tostring(result.error))
    check.same(ran, step.ran, label .. " ran")
    local route = opt(step.route)
    check.eq(result.route_id, route and ids[route + 1] or 0, label .. " route")
    if opt(step.redirects) then check.same(result.redirects, step.redirects, label .. " redirects") end
    if step.pending ~= nil then check.eq(r:pending_link(), opt(step.pending), label .. " pending") end
    local response = opt(step.response)
    if response then
      check.same({ status = result.response_status, headers = result.headers, body = result.body }, response, label .. " response")
    end
  end
end

local tests = {}
for _, e in ipairs(entries("tables")) do
  tests[#tests + 1] = { e.where .. " " .. e.case.name, function() run_table(e.where, e.case) end }
end
for _, e in ipairs(entries("patterns")) do
  tests[#tests + 1] = { e.where .. " " .. e.case.pattern, function()
    local r = assert(interlock.new())
    local id, message, offset, code = r:add_route(e.case.pattern)
    if e.case.status == "OK" then
      check.eq(type(id), "number", e.where .. ": " .. tostring(message))
    else
      check.eq(code, e.case.status, e.where .. " " .. e.case.pattern)
      if opt(e.case.offset) then check.eq(offset, e.case.offset, e.where .. " offset") end
    end
  end }
end
for _, e in ipairs(entries("conflicts")) do
  tests[#tests + 1] = { e.where, function()
    local r = assert(interlock.new())
    local routes = e.case.routes
    for i = 1, #routes - 1 do assert(r:add_route(routes[i])) end
    local id, message, _, code = r:add_route(routes[#routes])
    if opt(e.case.with) == nil then
      check.eq(type(id), "number", e.where .. ": " .. tostring(message))
    else
      check.eq(code, "ECONFLICT", e.where)
      check.eq(message:find("'" .. routes[e.case.with + 1] .. "'", 1, true) ~= nil, true, e.where .. ": " .. message)
    end
  end }
end
for _, e in ipairs(entries("pipelines")) do
  tests[#tests + 1] = { e.where .. " " .. e.case.name, function() run_pipeline(e.where, e.case) end }
end
return tests
