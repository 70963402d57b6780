-- Route files: all or nothing, errors with line, column and offset, loaded routes' values, and
-- handlers bound to loaded routes by name.
local check = require "check"
local interlock = require "interlock"

local FILE = [[
# the app's table
GET /users/:id            name=user      owner=accounts
myapp://settings/profile  name=settings
]]

return {
  { "load gives the ids; a loaded route's data reads its values", function()
    local r = assert(interlock.new())
    assert(r:add_route("/first"))
    local ids = assert(r:load(FILE))
    check.same(ids, { 2, 3 }, "the next ids, in the file's order")
    local id, data, params = r:match("/users/7", "GET")
    check.eq(id, 2, "loaded route matched")
    check.eq(data.owner, "accounts", "a value")
    check.eq(data.missing, nil, "no such key")
    check.same(params, { id = "7" }, "params")
    check.raises(function() data.owner = "x" end, "read-only")
    check.eq(r:route_name(3), "settings", "name from the file")
    check.eq(assert(r:add_route("/after")), 4, "ids go on after the file's")
  end },
  { "a bad line adds nothing and says where", function()
    local r = assert(interlock.new())
    local text = "GET /a  name=a\nGET /b/:x(  name=b\n"
    local ids, message, offset, code = r:load(text)
    check.eq(ids, nil, "nothing")
    check.eq(code, "EPATTERN", "code")
    check.eq(message:match("^line 2, column %d+:") ~= nil, true, message)
    check.eq(text:sub(offset + 1, offset + 1), "(", "the offset is in the text")
    check.eq(r:count(), 0, "all or nothing")
    check.eq(assert(r:add_route("/c")), 1, "no id given away")
  end },
  { "load_file: the file's path in the message", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write("GET /ok\nGET //bad\n")
    f:close()
    local r = assert(interlock.new())
    local ids, message = r:load_file(path)
    os.remove(path)
    check.eq(ids, nil, "nothing")
    check.eq(message:sub(1, #path + 9), path .. ": line 2,", message)
    check.eq(select(2, r:load_file("/nonexistent/routes.txt")) ~= nil, true, "an unreadable file")
  end },
  { "a handler bound to a loaded route by name", function()
    local r = assert(interlock.new())
    assert(r:load(FILE))
    assert(r:set_handler("user", function(req) return "user " .. req:param("id") .. " of " .. req:data().owner end))
    local result = assert(r:resolve("/users/9", "GET"))
    check.eq(result.body, "user 9 of accounts", "body")
    check.eq(select(4, r:set_handler("nobody", function() end)), "ENOROUTE", "unknown name")
  end },
}
