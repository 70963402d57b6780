# The addon, built by node-gyp against the library of the project's CMake build (build/lib, made by
# `make build`): `make node-build`, or node-gyp rebuild --nodedir=/usr from this folder.
# `node-gyp rebuild --nodedir=/usr -- -Dinterlock_build=DIR` names another build folder
# (DIR/lib/libinterlock.so): gyp takes -D after `--` only.
{
  "variables": {
    "interlock_build%": "<(module_root_dir)/../../build"
  },
  "targets": [
    {
      "target_name": "interlock",
      "sources": [
        "src/addon.c",
        "src/args.c",
        "src/errors.c",
        "src/match.c",
        "src/pipeline.c",
        "src/router.c",
        "src/routes.c",
        "src/texts.c",
        "src/values.c"
      ],
      "include_dirs": ["../../include"],
      "cflags_c": ["-std=gnu11", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"],
      "libraries": [
        "-L<(interlock_build)/lib",
        "-linterlock",
        "-Wl,-rpath,<(interlock_build)/lib"
      ]
    }
  ]
}
