-- The Interlock side of benchmarks/lua/nginx_bench.py: the table in the prefix's routes.txt
-- ("METHOD PATTERN" a line, the route's id its line number), one router per worker, and a
-- content handler answering the route's id (its parameters read into a reused table), 404 or 405.
local interlock = require "interlock"

local router = assert(interlock.new())
for line in io.lines(ngx.config.prefix() .. "routes.txt") do
  local method, pattern = line:match("^(%S+)%s+(%S+)")
  if method then assert(router:add_route(method == "-" and pattern or (method .. " " .. pattern))) end
end
assert(router:compile())

local params = {}

return function()
  local id, err = router:match(ngx.var.request_uri, ngx.req.get_method(), params)
  if not id then
    return ngx.exit(err == "method not allowed" and 405 or 404)
  end
  ngx.print(id)
end
