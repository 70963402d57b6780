-- The application the nginx test serves (bindings/lua/test/nginx_test.py writes the config):
--   * the GitHub API table (a route file), answered by `content()` through the fast path:
--     the route's id and its parameters, 404, or 405 with its Allow header;
--   * a table of hosts and deep links under *.example.com, run through the pipeline by `access()`:
--     a guard that refuses without an X-User header (403), a filter that redirects legacy links,
--     a filter that stops vault.example.com's requests without a token, answering 401 with its
--     WWW-Authenticate header and body, and /open?link=myapp://... that sends a deep link to its
--     web page (302, built by url_for).
-- Nothing here may yield inside a callback (the library's frames are below it): ngx.exit and
-- ngx.say run once resolve has returned.
local interlock = require "interlock"

local app = {}
-- The checkout: lua_package_path begins with its bindings/lua/?.lua.
local root = assert(package.path:match("([^;]*)/bindings/lua/%?%.lua"), "lua_package_path names bindings/lua")

local api = assert(interlock.new())
assert(api:load_file(root .. "/benchmarks/routesets/github_api.txt"))
assert(api:compile())

local links = assert(interlock.new())
assert(links:add_route("http://shop.example.com/p/:sku", { name = "product",
  handler = function(req) return "product " .. req:param("sku") end }))
assert(links:add_route("GET http://*.example.com/u/:id(\\d+)", { name = "user",
  handler = function(req) return "user " .. req:param("id") .. " on " .. req:host() end }))
assert(links:add_route("http://admin.example.com/admin/:section", { name = "admin",
  guard = function() return ngx.req.get_headers()["X-User"] == "ada" end,
  handler = function(req) return "admin " .. req:param("section") end }))
assert(links:add_route("http://vault.example.com/secret/:name", { name = "secret",
  handler = function(req) return "secret " .. req:param("name") end }))
assert(links:add_route("myapp://product/:sku", { name = "app-product" }))
assert(links:add_route("myapp://user/:id(\\d+)", { name = "app-user" }))
assert(links:add_filter(function(req, chain)
  local sku = req:path():match("^/old%-product/(.+)$")
  if sku then return chain:redirect_to("product", { sku = sku }) end
  chain:next(req)
end, "legacy-links"))
assert(links:add_filter(function(req, chain)
  if req:host() == "vault.example.com" and ngx.req.get_headers()["Authorization"] ~= "Bearer ada" then
    local res = chain:response()
    res:set_status(401)
    res:add_header("WWW-Authenticate", 'Bearer realm="vault"')
    return "a token is needed\n"
  end
  chain:next(req)
end, "vault-token"))
assert(links:compile())

-- Deep links to web pages: the route a link matches, to the page of the same name.
local web_page = { ["app-product"] = "product", ["app-user"] = "user" }

local params = {}

--- access_by_lua: requests to *.example.com go through the pipeline; the answer waits in ngx.ctx.
function app.access()
  local host = ngx.var.host
  if not host:find("%.example%.com$") then return end
  if ngx.var.uri == "/open" then
    local link = ngx.var.arg_link and ngx.unescape_uri(ngx.var.arg_link)
    local id = link and links:match(link, nil, params)
    local page = id and web_page[links:route_name(id)]
    if not page then return ngx.exit(404) end
    if page == "user" then params.host = host end
    return ngx.redirect(assert(links:url_for(page, params)), 302)
  end
  local result, message = links:resolve("http://" .. host .. ngx.var.request_uri, ngx.req.get_method())
  if not result then
    ngx.status = 400
    ngx.say(message)
    return ngx.exit(400)
  end
  if result.status == "GUARDED" then return ngx.exit(403) end
  if result.status == "METHOD_NOT_ALLOWED" then
    ngx.header["Allow"] = result:header("Allow")
    return ngx.exit(405)
  end
  -- (a filter that stopped answered: its response is the page, as a destination's is)
  if result.status ~= "OK" and result.status ~= "STOPPED" then return ngx.exit(result.response_status) end
  ngx.ctx.result = result
end

--- content_by_lua: the pipeline's answer, or the GitHub table's.
function app.content()
  local result = ngx.ctx.result
  if result then
    ngx.status = result.response_status
    for _, header in ipairs(result.headers) do ngx.header[header[1]] = header[2] end
    ngx.header["X-Route"] = links:route_name(result.route_id)
    return ngx.print(result.body)
  end
  local id, err, allow = api:match(ngx.var.request_uri, ngx.req.get_method(), params)
  if not id then
    if err == "method not allowed" then
      ngx.header["Allow"] = allow
      return ngx.exit(405)
    elseif err == "not found" then
      return ngx.exit(404)
    end
    ngx.status = 400
    return ngx.say(err)
  end
  local names = {}
  for name in pairs(params) do names[#names + 1] = name end
  table.sort(names)
  local parts = { "route=" .. id }
  for _, name in ipairs(names) do parts[#parts + 1] = name .. "=" .. params[name] end
  ngx.print(table.concat(parts, " "))
end

return app
