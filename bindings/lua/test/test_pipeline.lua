-- The pipeline from Lua: destinations, filters, guards, interceptors, the pending link, errors
-- raised in callbacks, and the callbacks' lifetimes.
local check = require "check"
local interlock = require "interlock"

return {
  { "a destination: status, headers, body, params and query", function()
    local r = assert(interlock.new())
    assert(r:add_route("myapp://user/:id(\\d+)", { name = "user", data = { plan = "pro" },
      handler = function(req, res)
        res:set_status(201)
        res:add_header("X-User", req:param("id"))
        res:set_body(("user %s coupon %s plan %s"):format(req:param("id"), req:query("coupon"), req:data().plan))
      end }))
    local result = assert(r:resolve("myapp://user/42?coupon=SPRING&coupon=2"))
    check.eq(result.status, "OK", "status")
    check.eq(result.code, interlock.OK, "code")
    check.eq(result.response_status, 201, "response status")
    check.eq(result.body, "user 42 coupon SPRING plan pro", "body")
    check.eq(result:header("x-user"), "42", "header")
    check.eq(result.route_id, 1, "route")
    check.same(result.params, { id = "42" }, "params")
    check.same(result.request:query_pairs(), { { "coupon", "SPRING" }, { "coupon", "2" } }, "query pairs")
    check.eq(result.request:scheme(), "myapp", "scheme")
    check.eq(result.trace[1].stage, "match", "trace")
  end },
  { "no route, and 405 with Allow", function()
    local r = assert(interlock.new())
    assert(r:add_route("GET /a", function() return "a" end))
    assert(r:add_route("PUT /a", function() return "a" end))
    local miss = assert(r:resolve("/b"))
    check.same({ miss.status, miss.response_status }, { "NOT_FOUND", 404 }, "not found")
    local not_allowed = assert(r:resolve("/a", "POST"))
    check.same({ not_allowed.status, not_allowed.response_status, not_allowed:header("Allow") },
      { "METHOD_NOT_ALLOWED", 405, "GET, PUT" }, "405")
    check.same(not_allowed.allowed, { "GET", "PUT" }, "allowed")
    assert(r:set_default(function(_, res) res:set_status(404); return "home" end))
    check.eq(assert(r:resolve("/b")).body, "home", "the default destination")
    check.same({ r:resolve("/a%") }, { nil, "bad percent-escape in path", 2, "EURI" }, "malformed URI")
  end },
  { "filters: continue, stop, redirect, redirect_to", function()
    local r = assert(interlock.new())
    assert(r:add_route("/product/:sku", { name = "product", handler = function(req) return "product " .. req:param("sku") end }))
    assert(r:add_route("/closed", function() return "never" end))
    local seen = {}
    assert(r:add_filter(function(req, chain)
      local path = req:path()
      if path == "/closed" then return interlock.STOP end
      if path:sub(1, 5) == "/old/" then return chain:redirect_to("product", { sku = path:sub(6) }) end
      if path == "/moved" then return chain:redirect("/product/M") end
      req:set_metadata("seen-by", "filter")
      local name, code = chain:next(req)
      seen[#seen + 1] = name
      check.eq(code, interlock.constants["ILK_" .. name], "the code with the name")
      chain:response():add_header("X-Filter", "1")
    end, "legacy"))
    local ok = assert(r:resolve("/product/A"))
    check.same({ ok.status, ok.body, ok:header("X-Filter") }, { "OK", "product A", "1" }, "continue")
    check.eq(seen[1], "OK", "next's status")
    check.eq(assert(r:resolve("/closed")).status, "STOPPED", "stop")
    local redirected = assert(r:resolve("/old/X-1"))
    check.same({ redirected.status, redirected.body, redirected.redirects }, { "OK", "product X-1", { "/product/X-1" } }, "redirect_to")
    check.eq(assert(r:resolve("/moved")).body, "product M", "redirect")
    local names = {}
    for _, t in ipairs(ok.trace) do names[#names + 1] = t.stage .. ":" .. tostring(t.name) end
    check.eq(table.concat(names, " "):find("filter:legacy", 1, true) ~= nil, true, table.concat(names, " "))
  end },
  { "a filter that stops answers with its response, as a destination does", function()
    local r = assert(interlock.new())
    local ran = {}
    assert(r:add_route("/a", function() ran[#ran + 1] = "destination"; return "a" end))
    assert(r:add_filter(function(req, chain)
      local answer = req:query("answer")
      if answer == "401" then
        local res = chain:response()
        res:set_status(401)
        res:add_header("WWW-Authenticate", "Bearer")
        return "no"
      elseif answer == "written" then
        local res = chain:response()
        res:set_status(503)
        res:set_body("later")
        return interlock.STOP
      elseif answer == "text" then
        return "closed"
      elseif answer == "nothing" then
        return interlock.STOP
      end
      chain:next(req)
    end, "gate"))
    local denied = assert(r:resolve("/a?answer=401"))
    check.same({ denied.status, denied.response_status, denied.body, denied.headers },
      { "STOPPED", 401, "no", { { "WWW-Authenticate", "Bearer" } } }, "401 with a header and a body")
    local names = {}
    for _, t in ipairs(denied.trace) do names[#names + 1] = t.stage .. ":" .. tostring(t.name) .. ":" .. t.decision end
    check.eq(table.concat(names, " "), "match:/a?answer=401:/a filter:gate:stop", "trace")
    local written = assert(r:resolve("/a?answer=written"))
    check.same({ written.status, written.response_status, written.body }, { "STOPPED", 503, "later" }, "written, then STOP")
    local text = assert(r:resolve("/a?answer=text"))
    check.same({ text.status, text.response_status, text.body }, { "STOPPED", 200, "closed" }, "a string: the body")
    local nothing = assert(r:resolve("/a?answer=nothing"))
    check.same({ nothing.status, nothing.response_status, nothing.body, nothing.headers },
      { "STOPPED", 200, "", {} }, "a stop that answers nothing: an empty 200, as before")
    check.same(ran, {}, "no destination ran")
    check.same({ assert(r:resolve("/a")).status, ran }, { "OK", { "destination" } }, "continued")
  end },
  { "a guard refuses; the pending link is replayed after a login", function()
    local r = assert(interlock.new())
    local user
    assert(r:add_route("myapp://account/:section", { name = "account",
      guard = function() return user ~= nil end,
      handler = function(req) return "account " .. req:param("section") .. " for " .. user end }))
    local refused = assert(r:resolve("myapp://account/billing"))
    check.eq(refused.status, "GUARDED", "refused")
    check.eq(r:pending_link(), "myapp://account/billing", "pending")
    user = "ada"
    local replayed = assert(r:replay_pending_link())
    check.same({ replayed.status, replayed.body }, { "OK", "account billing for ada" }, "replayed")
    check.eq(r:pending_link(), nil, "cleared")
    check.eq(r:replay_pending_link(), nil, "nothing pending")
    assert(r:set_guard("account", nil))
    user = "bob"
    check.eq(assert(r:resolve("myapp://account/x")).status, "OK", "guard removed")
    assert(r:resolve("myapp://nowhere"))
    assert(r:set_guard("account", function() return false end))
    assert(r:resolve("myapp://account/y"))
    check.eq(r:take_pending_link(), "myapp://account/y", "take")
    check.eq(r:pending_link(), nil, "taken")
  end },
  { "interceptors: abort, retry, validate_status, a route's scope, the logger", function()
    local r = assert(interlock.new())
    local attempts = 0
    assert(r:add_route("/flaky", function(_, res) attempts = attempts + 1; res:set_status(attempts < 3 and 503 or 200) end))
    assert(r:add_route("/secret", { name = "secret", handler = function() return "s" end }))
    local teapot = assert(r:add_route("/teapot", function(_, res) res:set_status(418) end))
    assert(r:add_request_interceptor(function(req) return req:abort("no secrets") end, "secret", "deny"))
    assert(r:add_response_interceptor(function(req, res)
      if res:status() == 503 then return res:retry() end
      req:set_state("org.example.seen", "yes")
    end))
    -- (a retry happens once every response interceptor ran: a global validator would abort first)
    assert(r:add_response_interceptor(interlock.validate_status(200, 299), teapot))
    local lines = {}
    assert(r:add_logger(function(line) lines[#lines + 1] = line end))
    local flaky = assert(r:resolve("/flaky"))
    check.same({ flaky.status, attempts, flaky:state("org.example.seen") }, { "OK", 3, "yes" }, "retried")
    local secret = assert(r:resolve("/secret"))
    check.same({ secret.status, secret.error }, { "ABORTED", "no secrets" }, "aborted in the route's scope")
    check.eq(assert(r:resolve("/teapot")).status, "ABORTED", "validate_status")
    check.eq(#lines > 0 and lines[1]:sub(1, 3), "-> ", "the logger's lines: " .. tostring(lines[1]))
    attempts = -10
    check.eq(assert(r:resolve("/flaky")).status, "RETRY_LIMIT", "past the retry limit")
  end },
  { "a filter's chain:response() is one object for its call, before next and after, and stale after it", function()
    local r = assert(interlock.new())
    assert(r:add_route("/a", function() return "a" end))
    local kept
    assert(r:add_filter(function(req, chain)
      kept = chain:response()
      kept:add_header("X-Dropped", "1")     -- for a stop; next drops it
      chain:next(req)
      check.eq(chain:response(), kept, "the same object after next")
      kept:set_status(203)
    end, "late"))
    local result = assert(r:resolve("/a"))
    check.same({ result.status, result.response_status, result.body, result.headers },
      { "OK", 203, "a", {} }, "written after next through the object taken before it")
    check.raises(function() kept:set_status(500) end, "used after its callback returned")
  end },
  { "a filter that called next and returns a string: the library says what to do instead", function()
    local r = assert(interlock.new())
    assert(r:add_route("/a", function() return "a" end))
    assert(r:add_filter(function(req, chain) chain:next(req); return "replaced" end, "late"))
    check.raises(function() r:resolve("/a") end, "a filter that called chain:next returned a string")
  end },
  { "a Lua error in a callback is raised by resolve, and the router goes on", function()
    local r = assert(interlock.new())
    assert(r:add_route("/boom", function() error("kaboom") end))
    assert(r:add_route("/fine", function() return "fine" end))
    check.raises(function() r:resolve("/boom") end, "kaboom")
    check.eq(assert(r:resolve("/fine")).body, "fine", "next resolve")
    assert(r:add_filter(function() return {} end))
    check.raises(function() r:resolve("/fine") end, "a filter returned a table: return nothing, a string (a stop's body) or one of interlock's verbs")
  end },
  { "a filter that neither continues nor stops: the library says so", function()
    local r = assert(interlock.new())
    assert(r:add_route("/a", function() return "a" end))
    assert(r:add_filter(function() end, "lazy"))
    local result = assert(r:resolve("/a"))
    check.eq(result.status, "ECALLBACK", "status")
    check.eq(result.error:find("without calling ilk_filter_chain_next", 1, true) ~= nil, true, result.error)
  end },
  { "a replaced handler or guard is let go of", function()
    local r = assert(interlock.new())
    local id = assert(r:add_route("/a", { handler = function() return "1" end, guard = function() return true end }))
    local function held()
      local n = 0
      for _ in pairs(r._fns) do n = n + 1 end
      return n
    end
    check.eq(held(), 2, "handler and guard")
    for i = 2, 10 do
      assert(r:set_handler(id, function() return tostring(i) end))
      assert(r:set_guard(id, function() return true end))
    end
    check.eq(held(), 2, "still one of each")
    check.eq(assert(r:resolve("/a")).body, "10", "the last handler")
    assert(r:set_guard(id, nil))
    check.eq(held(), 1, "the guard removed")
    assert(r:remove_route(id))
    check.eq(held(), 0, "the route removed")
  end },
  { "a request or response used after its callback returned is refused", function()
    local r = assert(interlock.new())
    local kept
    assert(r:add_route("/a", function(req) kept = req end))
    assert(r:resolve("/a"))
    check.raises(function() kept:path() end, "used after its callback returned")
  end },
  { "a destination that removes its own route, adds routes and resolves again", function()
    local r = assert(interlock.new())
    local id
    id = assert(r:add_route("/once", function(_, res)
      assert(r:remove_route(id))
      assert(r:add_route("/added", function() return "added" end))
      res:set_body("inner " .. assert(r:resolve("/added")).body)
    end))
    check.eq(assert(r:resolve("/once")).body, "inner added", "nested")
    check.eq(assert(r:resolve("/once")).status, "NOT_FOUND", "removed")
    local held = 0
    for _ in pairs(r._fns) do held = held + 1 end
    check.eq(held, 1, "the removed route's function is let go of once the resolve ended")
  end },
  { "callbacks do not grow with routes: 5,000 routes with handlers and guards", function()
    -- LuaJIT has a fixed number of callback slots (about a thousand): one a route would run out.
    local r = assert(interlock.new())
    for i = 1, 5000 do
      assert(r:add_route("/r" .. i .. "/:x", { handler = function(req) return i .. req:param("x") end,
        guard = function() return true end }))
    end
    check.eq(assert(r:resolve("/r4999/z")).body, "4999z", "the last routes run")
  end },
  { "routers are collected with their functions", function()
    local weak = setmetatable({}, { __mode = "k" })
    do
      local r = assert(interlock.new())
      assert(r:add_route("/a", function() return r:url_for("a") end))   -- a cycle through the closure
      weak[r] = true
    end
    collectgarbage()
    collectgarbage()
    check.eq(next(weak), nil, "collected")
  end },
}
