-- Routes and the fast path: add, match (params into the caller's table), misses, errors with their
-- offsets, remove, replace, data, names, url_for, explain, options, argument checks.
local check = require "check"
local interlock = require "interlock"

return {
  { "match gives the id, the data and the parameters in the caller's table", function()
    local r = assert(interlock.new())
    local data = { owner = "team" }
    check.eq(r:add_route("GET /repos/:owner/:repo", { name = "repo", data = data }), 1, "id")
    check.eq(r:add_route("/static/about"), 2, "second id")
    local params = { stale = "x" }
    local id, got, same_params = r:match("/repos/apple/swift", "GET", params)
    check.eq(id, 1, "id")
    check.eq(got, data, "data")
    check.eq(same_params, params, "the caller's table")
    check.same(params, { owner = "apple", repo = "swift" }, "params, cleared then filled")
    local _, _, fresh = r:match("/repos/a/b")
    check.same(fresh, { owner = "a", repo = "b" }, "a new table when none is given")
    local _, _, none = r:match("/repos/a/b", nil, false)
    check.eq(none, false, "params false: none read")
    check.eq(r:param("repo"), "b", "read lazily")
    check.eq(r:param("nope"), nil, "unbound")
    check.same(r:params(), { owner = "a", repo = "b" }, "params of the last match")
    check.eq(r:route_name(1), "repo", "name")
    check.eq(r:route_name(2), nil, "no name")
    check.eq(r:route_id("repo"), 1, "id by name")
  end },
  { "a match reads its parameters without a failing call (an error costs the library a message)", function()
    local ffi = require "ffi"
    local C = require("interlock.native").C
    local r = assert(interlock.new())
    assert(r:add_route("/a/:x/:y"))
    local _, message = r:add_route("/b/:x(")
    assert(r:match("/a/1/2", nil, {}))
    check.eq(ffi.string(C.ilk_errmsg()), message, "the last error is still the pattern's")
  end },
  { "misses: not found, and method not allowed with the Allow value", function()
    local r = assert(interlock.new())
    assert(r:add_route("GET /a/:x"))
    assert(r:add_route("DELETE /a/:x"))
    check.same({ r:match("/b") }, { nil, "not found" }, "not found")
    check.same({ r:match("/a/1", "POST") }, { nil, "method not allowed", "GET, DELETE" }, "405")
    check.eq(r:match("/a/1", ""), 1, "\"\" is any method")
  end },
  { "errors: nil, message, offset, code", function()
    local r = assert(interlock.new())
    local id, message, offset, code = r:add_route("/users/:id(\\d+")
    check.eq(id, nil, "no id")
    check.eq(code, "EPATTERN", "code")
    check.eq(type(message), "string", "message")
    check.eq(offset, 10, "the offset of the bad constraint")
    assert(r:add_route("/users/:id"))
    local _, conflict, _, conflict_code = r:add_route("/users/:name")
    check.eq(conflict_code, "ECONFLICT", "conflict")
    check.eq(conflict:find("/users/:id", 1, true) ~= nil, true, "the message names the other route: " .. conflict)
    local none, uri_message, uri_offset, uri_code = r:match("/users/a%zz")
    check.same({ none, uri_offset, uri_code }, { nil, 8, "EURI" }, "a bad escape: " .. tostring(uri_message))
    local _, _, method_offset, method_code = r:match("/users/1", "GE T")
    check.same({ method_offset, method_code }, { 2, "EINVAL" }, "a bad method")
    check.same({ select(4, r:remove_route(99)) }, { "ENOROUTE" }, "unknown id")
  end },
  { "wrong argument types are raised, naming the argument", function()
    local r = assert(interlock.new())
    check.raises(function() r:add_route(42) end, "pattern must be a string")
    check.raises(function() r:match(nil) end, "uri must be a string")
    check.raises(function() r:match("/a", 1) end, "method must be a string")
    check.raises(function() r:add_route("/a", { handler = "x" }) end, "options.handler must be a function")
    check.raises(function() interlock.new("yes") end, "options must be a table")
  end },
  { "a NUL byte in a string the library reads up to its NUL is refused, never cut short", function()
    local r = assert(interlock.new())
    check.raises(function() r:add_route("/a\0/b") end, "pattern holds a NUL byte (at byte 2)")
    check.eq(r:count(), 0, "nothing added")
    assert(r:add_route("GET /a", { name = "a" }))
    check.raises(function() r:match("/a", "GET\0X") end, "method holds a NUL byte (at byte 3)")
    check.raises(function() r:url_for("a", { x = "1\0" }) end, "parameter x holds a NUL byte")
    check.raises(function() r:remove_route("a\0b") end, "holds a NUL byte")
    check.raises(function() r:param("x\0") end, "name holds a NUL byte")
    -- A URI goes with its length: the library judges the NUL (a control byte).
    check.same({ select(3, r:match("/a\0")) }, { 2, "EURI" }, "a NUL in a URI")
    local text_ids, _, offset, code = r:load("GET /b\0\n")
    check.same({ text_ids, offset, code }, { nil, 6, "EPATTERN" }, "a NUL in a route file")
  end },
  { "remove and replace", function()
    local r = assert(interlock.new())
    local a = assert(r:add_route("/a/:x", { name = "a", data = "A" }))
    local b = assert(r:add_route("/b"))
    check.eq(r:count(), 2, "count")
    check.eq(assert(r:replace_route("a", "/aa/:x")), true, "replace by name")
    check.eq(r:match("/a/1"), nil, "old pattern gone")
    local id, data = r:match("/aa/1")
    check.same({ id, data }, { a, "A" }, "same id and data under the new pattern")
    check.eq(select(4, r:replace_route(b, "/aa/:y")), "ECONFLICT", "replace into a conflict")
    check.eq(r:match("/b"), b, "a failed replace leaves the route")
    assert(r:remove_route(a))
    check.eq(r:match("/aa/1"), nil, "removed")
    check.eq(r:count(), 1, "count after")
    check.eq(select(4, r:remove_route(a)), "ENOROUTE", "removed twice")
    check.eq(assert(r:add_route("/c")), 3, "ids are never given again")
    local seen = {}
    for rid, pattern, name in r:routes() do seen[#seen + 1] = { rid, pattern, name } end
    check.same(seen, { { b, "/b" }, { 3, "/c" } }, "routes in id order")
    assert(r:set_data(b, { 1 }))
    check.same(select(2, r:match("/b")), { 1 }, "set_data")
    check.eq(select(4, r:set_data(a, 1)), "ENOROUTE", "set_data on a removed route")
  end },
  { "the GitHub table: every route found by its own path", function()
    local r, routes = check.github()
    local params = {}
    for i, line in ipairs(routes) do
      local method, path = line:match("^(%S+) (%S+)$")
      local uri = path:gsub(":([%w_]+)", "%1-v")
      local id = r:match(uri, method, params)
      check.eq(id, i, line)
      for name in path:gmatch(":([%w_]+)") do check.eq(params[name], name .. "-v", line .. " " .. name) end
    end
  end },
  { "options: case-insensitive and strict slash", function()
    local ci = assert(interlock.new({ case_insensitive = true }))
    assert(ci:add_route("/About"))
    check.eq(ci:match("/aBOUT"), 1, "case-insensitive")
    local strict = assert(interlock.new({ strict_slash = true }))
    assert(strict:add_route("/a/"))
    check.eq(strict:match("/a"), nil, "strict slash")
    check.eq(strict:match("/a/"), 1, "strict slash, with it")
  end },
  { "deep links with hosts and url_for", function()
    local r = assert(interlock.new())
    assert(r:add_route("myapp://user/:id(\\d+)", { name = "user" }))
    assert(r:add_route("https://*.example.com/p/:sku", { name = "product" }))
    local p = {}
    check.eq(r:match("myapp://user/42?x=1", nil, p), 1, "deep link")
    check.same(p, { id = "42" }, "its params")
    check.eq(r:match("https://shop.Example.com/p/x%20y", nil, p), 2, "wildcard host")
    check.same(p, { sku = "x y" }, "decoded (a wildcard host binds no parameter)")
    check.eq(r:url_for("user", { id = 7 }), "myapp://user/7", "numbers are written as strings")
    check.eq(r:url_for("product", { host = "eu.example.com", sku = "a b" }), "https://eu.example.com/p/a%20b", "url_for with a host")
    check.eq(select(4, r:url_for("user", { id = "x" })), "EINVAL", "a value the constraint refuses")
    check.eq(select(4, r:url_for("nobody", {})), "ENOROUTE", "unknown name")
    local long = string.rep("x", 2000)
    check.eq(#assert(r:url_for("product", { host = "eu.example.com", sku = long })), #"https://eu.example.com/p/" + 2000, "a long URL")
  end },
  { "explain gives the library's JSON", function()
    local r = assert(interlock.new())
    assert(r:add_route("GET /a/:x", { name = "ax" }))
    local json = assert(r:explain("/a/1", "GET"))
    check.eq(json:find('"answer":{"route":1', 1, true) ~= nil, true, json)
    check.eq(select(4, r:explain("/a/%", "GET")), "EURI", "a malformed URI")
    for i = 1, 150 do assert(r:add_route(("GET /a/%d/:x"):format(i))) end
    check.eq(#assert(r:explain("/a/1/2")) > 512, true, "an explanation larger than the first buffer")
  end },
}
