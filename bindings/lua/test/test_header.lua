-- The declarations come from the header: every function the generated cdef declares is in the
-- library, and the module's constants are the header's.
local ffi = require "ffi"
local check = require "check"
local interlock = require "interlock"
local generated = require "interlock.cdef"

return {
  { "the generated file says so on its first line", function()
    local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
    local file = assert(io.open(here .. "/../interlock/cdef.lua"))
    local first = file:read("*l")
    file:close()
    check.eq(first:find("Generated from include/interlock.h by Tools/headergen.py", 1, true) ~= nil, true, first)
  end },
  { "every declared function is in the library", function()
    local C = ffi.load(interlock.library)
    local count = 0
    for name in generated.cdef:gmatch("([%w_]+)%(") do
      if name:sub(1, 4) == "ilk_" then
        check.eq(pcall(function() return C[name] end), true, name)
        count = count + 1
      end
    end
    check.eq(count > 100, true, "functions declared: " .. count)
  end },
  { "constants are the header's, with and without the prefix", function()
    check.eq(interlock.OK, generated.constants.ILK_OK, "OK")
    check.eq(interlock.ILK_STOP, nil, "no ILK_ names on the module itself")
    check.eq(interlock.constants.ILK_STOP, interlock.STOP, "STOP")
    check.eq(interlock.version, ("%d.%d.%d"):format(interlock.VERSION_MAJOR, interlock.VERSION_MINOR,
      interlock.VERSION_PATCH), "version")
    -- A verb and a status may share a value: each group keeps its own names.
    local verbs = {}
    for _, name in ipairs(interlock.groups.callbacks) do verbs[name] = true end
    check.eq(verbs.ILK_STOP, true, "ILK_STOP is a verb")
    check.eq(verbs.ILK_NOT_FOUND, nil, "ILK_NOT_FOUND is not a verb")
  end },
  { "the rockspec has the header's version and lists every module file", function()
    local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
    local name = ("interlock-%s-1.rockspec"):format(interlock.version)
    local spec = {}
    local chunk = assert(loadfile(here .. "/../" .. name), "bindings/lua/" .. name .. " (the header's version)")
    setfenv(chunk, spec)()
    check.eq(spec.version, interlock.version .. "-1", "version")
    local listed = {}
    for module, file in pairs(spec.build.modules) do
      listed[file] = true
      check.eq(io.open(here .. "/../" .. file) ~= nil, true, module .. ": " .. file)
    end
    local ls = io.popen("cd '" .. here .. "/..' && ls interlock.lua interlock/*.lua")
    for file in ls:lines() do check.eq(listed[file], true, file .. " is in the rockspec") end
    ls:close()
  end },
}
