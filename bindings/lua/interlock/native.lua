-- The library through LuaJIT's FFI: the header's declarations (interlock/cdef.lua, generated from
-- include/interlock.h), the library loaded and its version checked, and errors turned into the
-- module's `nil, message, offset, code`. Nothing here decides anything: every rule is the library's.
local ffi = require "ffi"
local generated = require "interlock.cdef"

ffi.cdef(generated.cdef)

local K = generated.constants

-- Where the library is: $INTERLOCK_LIBRARY, else the build of the source checkout this file is
-- in (build/lib), else the system's (ffi.load's search: LD_LIBRARY_PATH, ld.so.cache).
local function candidates()
  local list = {}
  local env = os.getenv("INTERLOCK_LIBRARY")
  if env and env ~= "" then
    list[1] = env
    return list
  end
  local source = debug.getinfo(1, "S").source
  if source:sub(1, 1) == "@" then
    local dir = source:sub(2):match("^(.*)/[^/]*$") or "."
    list[#list + 1] = dir .. "/../../../build/lib/libinterlock.so"
  end
  list[#list + 1] = "interlock"
  return list
end

local function load()
  local tried = {}
  for _, path in ipairs(candidates()) do
    local ok, lib = pcall(ffi.load, path)
    if ok then
      local version = lib.ilk_version_number()
      if version ~= K.ILK_VERSION_NUMBER then
        error(("interlock: %s is version %s, this module needs %d.%d.%d"):format(
          path, ffi.string(lib.ilk_version()), K.ILK_VERSION_MAJOR, K.ILK_VERSION_MINOR, K.ILK_VERSION_PATCH), 0)
      end
      return lib, path
    end
    tried[#tried + 1] = tostring(lib)
  end
  error("interlock: cannot load the Interlock library (" .. table.concat(tried, "; ") ..
    "); build it (make build), install it, or set INTERLOCK_LIBRARY", 0)
end

local C, path = load()

-- The names of the status codes by value ("EPATTERN" for ILK_EPATTERN), from the header's
-- status group. Positive statuses and the verbs share values, so each group is read on its own.
local status_name = {}
for _, name in ipairs(generated.groups.status) do
  local value = K[name]
  if type(value) == "number" then
    status_name[value] = name:sub(5)
  end
end

local NO_OFFSET = K.ILK_NO_OFFSET

-- The last error of this thread as `nil, message, offset, code`: the library's message, the byte
-- offset it gives (nil when none), the code's name ("EPATTERN"). Read right after the failing call.
local function fail(rc)
  local offset = C.ilk_erroffset()
  return nil, ffi.string(C.ilk_errmsg()), offset ~= NO_OFFSET and tonumber(offset) or nil, status_name[rc] or rc
end

return {
  C = C,
  K = K,
  groups = generated.groups,
  path = path,
  fail = fail,
  status_name = status_name,
}
