-- The Lua examples of the project's README (its "Lua" section) and of bindings/lua/README.md run
-- as written; a `print(...)` line that ends with a comment prints what the comment says
-- (whitespace aside).
local check = require "check"

local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")

local function blocks(path, section)
  local file = assert(io.open(path))
  local text = file:read("*a")
  file:close()
  if section then
    text = assert(text:match("\n## " .. section .. "\n(.-)\n## "), section .. " section")
  end
  local list = {}
  for block in text:gmatch("```lua\n(.-)```") do list[#list + 1] = block end
  return list
end

local function squeeze(s) return (s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")) end

local function run(name, block)
  local printed = {}
  local env = setmetatable({ print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    printed[#printed + 1] = table.concat(parts, " ")
  end }, { __index = _G })
  local chunk = assert(loadstring(block, "=" .. name))
  setfenv(chunk, env)()
  local n = 0
  for line in block:gmatch("[^\n]+") do
    if line:match("^print%(") then
      n = n + 1
      local said = line:match("%)%s*%-%-%s*(.-)%s*$")
      if said then check.eq(squeeze(printed[n] or ""), squeeze(said), name .. ": " .. line) end
    end
  end
  return #printed
end

return {
  { "README.md's Lua example runs", function()
    local list = blocks(here .. "/../../../README.md", "Lua")
    check.eq(#list >= 1, true, "a Lua example")
    for i, block in ipairs(list) do run("README.md, Lua " .. i, block) end
  end },
  { "bindings/lua/README.md's examples run and print what they say", function()
    local list = blocks(here .. "/../README.md")
    check.eq(#list >= 1, true, "an example")
    local printed = 0
    for i, block in ipairs(list) do printed = printed + run("bindings/lua/README.md " .. i, block) end
    check.eq(printed >= 3, true, "lines printed")
  end },
}
