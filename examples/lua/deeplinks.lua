-- Deep links from LuaJIT: a deep link resolved through the pipeline (a filter, a guard, its
-- pending link replayed after a "login"), and the fast path. Run from a checkout after
-- `make build`: luajit examples/lua/deeplinks.lua
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or "."
package.path = here .. "/../../bindings/lua/?.lua;" .. package.path

local interlock = require "interlock"

local router = assert(interlock.new())
local session = {}

assert(router:add_route("myapp://product/:sku", { name = "product",
  handler = function(req)
    local campaign = req:query("utm")
    return "Product " .. req:param("sku") .. (campaign and (" via " .. campaign) or "")
  end }))
assert(router:add_route("myapp://account/:section", { name = "account",
  guard = function() return session.user ~= nil end,
  handler = function(req) return "Account " .. req:param("section") .. " for " .. session.user end }))
assert(router:add_filter(function(req, chain)
  local sku = req:path():match("^/old%-product/(.+)$")
  if sku then return chain:redirect_to("product", { sku = sku }) end
  chain:next(req)
end, "legacy-links"))

local function show(uri, result)
  print(uri)
  print(("  => %s %d: %q"):format(result.status, result.response_status, result.body))
  for _, entry in ipairs(result.trace) do
    print(("     %-21s%-34s%s"):format(entry.stage, entry.name or "", entry.decision or ""))
  end
end

for _, uri in ipairs({ "myapp://product/X-100?utm=spring", "myapp://old-product/X-200", "myapp://account/billing" }) do
  show(uri, assert(router:resolve(uri)))
end
print("pending link: " .. tostring(router:pending_link()))
session.user = "ada"
show("(replayed after the login)", assert(router:replay_pending_link()))

-- The fast path: no callback, the parameters into a table the caller keeps.
local params = {}
local id = router:match("myapp://product/A-1", nil, params)
print(("\nmatch: route %d (%s), sku=%s; url_for: %s"):format(id, router:route_name(id), params.sku,
  assert(router:url_for("product", { sku = "B 2" }))))
