-- Assertions for the unit tests, and the route table several of them use.
local check = {}

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

function check.eq(got, want, what)
  if got ~= want then
    error(("%s: got %s, want %s"):format(what or "value", show(got), show(want)), 2)
  end
end

-- Deep equality of plain tables.
local function same(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local function dump(t)
  if type(t) ~= "table" then return show(t) end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. "=" .. dump(t[k]) end
  return "{" .. table.concat(parts, ", ") .. "}"
end
check.dump = dump

function check.same(got, want, what)
  if not same(got, want) then
    error(("%s: got %s, want %s"):format(what or "value", dump(got), dump(want)), 2)
  end
end

-- `fn` raises an error whose message holds `pattern` (plain text).
function check.raises(fn, text, what)
  local ok, err = pcall(fn)
  if ok then error((what or "call") .. ": did not raise", 2) end
  if text and not tostring(err):find(text, 1, true) then
    error(("%s: raised %s, want a message holding %q"):format(what or "call", tostring(err), text), 2)
  end
end

-- The GitHub API table (benchmarks/routesets/github_api.txt) in a new router: the router, and
-- the table's route lines in order.
function check.github()
  local router = assert(require("interlock").new())
  local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
  local routes = {}
  for line in io.lines(here .. "/../../../benchmarks/routesets/github_api.txt") do
    if line:match("%S") then
      routes[#routes + 1] = line
      assert(router:add_route(line))
    end
  end
  return router, routes
end

return check
