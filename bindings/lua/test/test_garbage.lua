-- The fast path creates no garbage: counted with collectgarbage("count") over many lookups of
-- the GitHub table (the collector stopped meanwhile), never timed.
local check = require "check"

local function table_and_requests()
  local r, routes = check.github()
  local requests = {}
  for _, line in ipairs(routes) do
    local method, path = line:match("^(%S+) (%S+)$")
    requests[#requests + 1] = { method, (path:gsub(":([%w_]+)", "%1-v")) }
  end
  requests[#requests + 1] = { "GET", "/no/such/route" }      -- a miss (405 answers build their Allow list)
  return r, requests
end

-- Bytes allocated per lookup over `passes` passes, after a warm-up (the JIT compiles the loop,
-- strings the answers hold already exist).
local function bytes_per_lookup(r, requests, params, passes)
  local function pass()
    local sum = 0
    for i = 1, #requests do
      local q = requests[i]
      sum = sum + (r:match(q[2], q[1], params) or 0)
    end
    return sum
  end
  for _ = 1, 50 do pass() end
  collectgarbage()
  collectgarbage("stop")
  local before = collectgarbage("count")
  local sum = 0
  for _ = 1, passes do sum = sum + pass() end
  local after = collectgarbage("count")
  collectgarbage("restart")
  check.eq(sum > 0, true, "the lookups matched")
  return (after - before) * 1024 / (passes * #requests)
end

return {
  { "the route id alone: no byte allocated, JIT or interpreter", function()
    local r, requests = table_and_requests()
    jit.off()
    local interpreted = bytes_per_lookup(r, requests, false, 200)
    jit.on()
    check.eq(interpreted, 0, "bytes per lookup, interpreted")
    check.eq(bytes_per_lookup(r, requests, false, 200) < 0.05, true, "bytes per lookup, compiled")
  end },
  { "parameters into the caller's table: no garbage once compiled", function()
    local r, requests = table_and_requests()
    local params = {}
    local per_lookup = bytes_per_lookup(r, requests, params, 500)
    -- A new table a lookup would be 40 bytes or more; the interpreter boxes the C pointers it reads.
    check.eq(per_lookup < 1, true, ("%.3f bytes per lookup"):format(per_lookup))
  end },
}
