-- Runs the Lua binding's unit tests under plain LuaJIT: `luajit bindings/lua/test/run.lua [NAME...]`
-- from the repository's root (make lua-test does). Each test_*.lua file returns a list of
-- {name, function}; a test fails by raising. Exit status 1 if any failed.
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or "."
package.path = here .. "/../?.lua;" .. here .. "/?.lua;" .. package.path

-- conformance.lua runs the project's conformance data (spec/conformance) through the module.
local files = { "test_header", "test_routing", "test_route_files", "test_pipeline", "test_garbage", "test_readme", "conformance" }
local only = {}
for _, name in ipairs(arg) do only[name] = true end

local passed, failed = 0, {}
for _, file in ipairs(files) do
  if next(only) == nil or only[file] then
    local tests = require(file)
    for _, test in ipairs(tests) do
      local ok, err = xpcall(test[2], debug.traceback)
      if ok then
        passed = passed + 1
      else
        failed[#failed + 1] = file .. ": " .. test[1] .. "\n" .. tostring(err)
      end
    end
  end
end
for _, f in ipairs(failed) do io.write("FAIL ", f, "\n\n") end
print(("lua unit tests: %d passed, %d failed"):format(passed, #failed))
os.exit(#failed == 0 and 0 or 1)
