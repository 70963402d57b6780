"""The wheel (`python -m build --wheel`, as `make wheel` and `pip wheel` make it): its name and tags,
what it holds, and that it installs and works where there is neither Swift, nor PCRE2's files, nor
any build tool: a fresh virtual environment whose bin/ is all of PATH, run from another folder."""

from __future__ import annotations

import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import interlock
from conftest import PACKAGE, clean_environment, python_build

# What a manylinux wheel may leave to the system (the PEP 600 set, as auditwheel's policies have it).
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                    "ld-linux-x86-64.so.2", "libstdc++.so.6", "libgcc_s.so.1"}
NAME = re.compile(r"^interlock-(?P<version>[^-]+)-cp310-abi3-manylinux_2_(?P<glibc>\d+)_x86_64\.whl$")
ELF_MAGIC = b"\x7fELF"


def elf_files(wheel: Path, into: Path) -> dict[str, Path]:
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(into)
        names = archive.namelist()
    return {name: into / name for name in names if (into / name).is_file()
            and (into / name).read_bytes()[:4] == ELF_MAGIC}


def elf_facts(path: Path) -> dict:
    """NEEDED, whether a .symtab is left, and the GLIBC_2.x versions it asks for (pyelftools comes
    with auditwheel, which make py-deps installs)."""
    elffile = pytest.importorskip("elftools.elf.elffile")
    with path.open("rb") as stream:
        elf = elffile.ELFFile(stream)
        dynamic = elf.get_section_by_name(".dynamic")
        needed = [tag.needed for tag in dynamic.iter_tags() if tag.entry.d_tag == "DT_NEEDED"]
        versions = set()
        verneed = elf.get_section_by_name(".gnu.version_r")
        if verneed is not None:
            for _, auxiliaries in verneed.iter_versions():
                versions.update(aux.name for aux in auxiliaries)
        return {"needed": needed, "symtab": elf.get_section_by_name(".symtab") is not None,
                "glibc": {int(m.group(1)) for v in versions if (m := re.fullmatch(r"GLIBC_2\.(\d+)(\.\d+)?", v))}}


def test_the_wheel_is_named_and_tagged_cp310_abi3_manylinux(built_wheel: Path) -> None:
    """cp310-abi3: the accelerator is built against the limited API 3.10, so the one wheel serves
    every CPython from 3.10 on."""
    match = NAME.match(built_wheel.name)
    assert match, f"{built_wheel.name} is not interlock-<version>-cp310-abi3-manylinux_2_NN_x86_64.whl"
    assert match["version"] == interlock.__version__
    with zipfile.ZipFile(built_wheel) as archive:
        wheel_info = archive.read(f"interlock-{interlock.__version__}.dist-info/WHEEL").decode()
    assert f"Tag: cp310-abi3-manylinux_2_{match['glibc']}_x86_64" in wheel_info.splitlines()
    assert "Root-Is-Purelib: false" in wheel_info.splitlines()


def test_a_wheel_without_the_accelerator_serves_the_other_pythons(tmp_path: Path) -> None:
    """INTERLOCK_PURE_PYTHON=1 at build time: py3-none (PyPy, free-threaded CPython), ctypes only."""
    run = python_build(PACKAGE, tmp_path, "wheel", INTERLOCK_PURE_PYTHON="1")
    assert run.returncode == 0, run.stdout + run.stderr
    (wheel,) = tmp_path.glob("*.whl")
    assert re.fullmatch(rf"interlock-{re.escape(interlock.__version__)}-py3-none-manylinux_2_\d+_x86_64\.whl", wheel.name)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "interlock/libinterlock.so" in names and not any("_speedups" in name for name in names)


def test_the_tag_is_the_glibc_the_library_needs(built_wheel: Path, tmp_path: Path) -> None:
    tag_glibc = int(NAME.match(built_wheel.name)["glibc"])  # type: ignore[index]
    needed = max(max(elf_facts(path)["glibc"], default=0) for path in elf_files(built_wheel, tmp_path).values())
    # The tag asks for no less than the newest GLIBC_2.x symbol version the libraries use ...
    assert tag_glibc >= needed > 0
    # ... and is the one auditwheel finds the wheel consistent with (libstdc++'s versions count too).
    pytest.importorskip("auditwheel")
    show = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(built_wheel)],
                          capture_output=True, text=True, check=True).stdout
    # (auditwheel wraps its text where the wheel's name makes it: any space may be a line break)
    assert re.search(rf'consistent\s+with\s+the\s+following\s+platform\s+tag:\s+"manylinux_2_{tag_glibc}_x86_64"', show), show


def test_the_wheel_holds_the_package_the_stripped_library_and_pcre2(built_wheel: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(built_wheel) as archive:
        names = sorted(n for n in archive.namelist() if not n.endswith("/"))
    dist_info = f"interlock-{interlock.__version__}.dist-info/"
    vendored = [n for n in names if n.startswith("interlock.libs/")]
    package = [n for n in names if n.startswith("interlock/")]
    assert package == ["interlock/__init__.py", "interlock/__main__.py", "interlock/_abi.py", "interlock/_callbacks.py",
                       "interlock/_changes.py", "interlock/_door.py", "interlock/_errors.py", "interlock/_interceptors.py",
                       "interlock/_matches.py", "interlock/_native.py", "interlock/_routefiles.py", "interlock/_router.py",
                       "interlock/_slot.py", "interlock/_speedups.abi3.so",
                       "interlock/_text.py", "interlock/_values.py", "interlock/_web.py", "interlock/_wire.py",
                       "interlock/asgi.py", "interlock/bin/interlock", "interlock/libinterlock.so", "interlock/py.typed",
                       "interlock/wsgi.py"]
    assert len(vendored) == 1 and re.fullmatch(r"interlock\.libs/libpcre2-8-[0-9a-f]+\.so[.0-9]*", vendored[0]), vendored
    assert set(names) - set(package) - set(vendored) <= {dist_info + n for n in
                                                         ("METADATA", "WHEEL", "RECORD", "top_level.txt",
                                                          "entry_points.txt", "sboms/auditwheel.cdx.json")}
    assert {dist_info + "METADATA", dist_info + "WHEEL", dist_info + "RECORD"} <= set(names)

    elves = elf_files(built_wheel, tmp_path)
    assert set(elves) == {"interlock/libinterlock.so", "interlock/_speedups.abi3.so", "interlock/bin/interlock", vendored[0]}
    inside = {Path(name).name for name in elves}
    for name, path in elves.items():
        facts = elf_facts(path)
        outside = set(facts["needed"]) - SYSTEM_LIBRARIES - inside
        assert not outside, f"{name} needs {outside} from outside the wheel"
        assert not any(n.startswith("libpcre2") for n in set(facts["needed"]) - inside)
    library = elf_facts(elves["interlock/libinterlock.so"])
    assert not library["symtab"], "libinterlock.so is not stripped"
    assert Path(vendored[0]).name in library["needed"]
    command = elf_facts(elves["interlock/bin/interlock"])
    assert not command["symtab"], "the interlock command is not stripped"
    assert Path(vendored[0]).name in command["needed"]
    with zipfile.ZipFile(built_wheel) as archive:
        assert archive.getinfo("interlock/bin/interlock").external_attr >> 16 & 0o111 == 0o111, "not executable"
        entry_points = archive.read(dist_info + "entry_points.txt").decode()
    assert "[console_scripts]\ninterlock = interlock.__main__:main" in entry_points


def test_the_command_asks_no_newer_glibc_than_the_library(built_wheel: Path, tmp_path: Path) -> None:
    """The command would need glibc 2.35 (hypot and hypotf of the Swift Glibc overlay, bound to the
    newest libm symbol versions) and narrow the wheel's tag; Tools/interlock's GlibcBaseline binds
    them to the old ones."""
    elves = elf_files(built_wheel, tmp_path)
    library, command = (max(elf_facts(elves[name])["glibc"]) for name in ("interlock/libinterlock.so", "interlock/bin/interlock"))
    assert command <= library, f"the command needs GLIBC_2.{command}, the library GLIBC_2.{library}"


def test_the_build_says_what_it_is_doing(built_wheel: Path) -> None:
    log = (built_wheel.parent / "build.log").read_text()
    for step in ("interlock: Building libinterlock and the interlock command with CMake", "interlock: stripping",
                 "interlock: auditwheel repair", f"interlock: wheel: {built_wheel.name}"):
        assert step in log, f"no {step!r} in the build's output:\n{log}"


@pytest.fixture(scope="module")
def installed(built_wheel: Path, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The wheel pip-installed into a fresh virtual environment; PATH is that environment's bin/
    alone: no swift, cmake, compiler, pkg-config or strip to be found."""
    root = tmp_path_factory.mktemp("installed")
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    environment = clean_environment(PATH=str(env_dir / "bin"), PIP_NO_INDEX="1", PIP_FIND_LINKS="")
    subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
                    "--only-binary", ":all:", str(built_wheel)], check=True, env=environment, cwd=root)
    return env_dir, environment


INSTALLED_SCRIPT = r"""
import pathlib, shutil
import interlock
assert not any(shutil.which(tool) for tool in ("swift", "cmake", "cc", "gcc", "pkg-config", "strip"))
here = pathlib.Path(interlock.__file__).resolve().parent
router = interlock.Router()
router.add_route("myapp://user/:id(\\d+)", lambda q: "user " + q.params["id"], name="user")
router.add_route("GET https://example.com/repos/:owner/:repo/issues/:number(\\d+)",
                 lambda q: "issue {owner}/{repo}#{number}".format(**q.params), name="issue")
assert router.resolve("myapp://user/42").response.body == b"user 42"
assert router.resolve("myapp://user/forty-two").status is interlock.Status.NOT_FOUND
assert router.resolve("https://example.com/repos/a/b/issues/7", "GET").response.body == b"issue a/b#7"
assert interlock.accelerated and type(router.match).__name__ == "builtin_function_or_method"   # the wheel's accelerator
assert type(router.match("myapp://user/1")) is interlock.Match is interlock._speedups.Match
for _ in range(2):   # the second through the door itself (the first finds the route's head)
    assert router.match("https://example.com/repos/a/b/issues/7", "GET").params == {"owner": "a", "repo": "b", "number": "7"}
assert router.url_for("user", id=7) == "myapp://user/7"
# PCRE2 is the wheel's own copy, not the system's.
mapped = {line.split()[-1] for line in open("/proc/self/maps") if "pcre2" in line}
assert mapped and all(pathlib.Path(p).parent == here.parent / "interlock.libs" for p in mapped), mapped
print("installed", interlock.__version__, here)
"""


def test_installed_wheel_works_without_swift_pcre2_or_build_tools(installed, tmp_path: Path) -> None:
    env_dir, environment = installed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = subprocess.run([str(env_dir / "bin" / "python"), "-c", INSTALLED_SCRIPT], env=environment,
                         cwd=elsewhere, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    site = next((env_dir / "lib").glob("python3*/site-packages"))
    assert out.stdout.strip() == f"installed {interlock.__version__} {site.resolve() / 'interlock'}"


# The command's cases: each subcommand, each exit status (0 all well, 1 problems, 2 unreadable).
COMMAND_FILES = {
    "good.routes": "GET /users/:id   name=user  owner=accounts\nmyapp://settings  name=settings\n",
    "bad.routes": "GET /users/:id\nGET /users/:other\nget /x\nGET\n",
    "access.log": '1.2.3.4 - - [28/Nov/2026:10:00:00 +0000] "GET /users/7 HTTP/1.1" 200 1\n/nowhere\n/a%zz\n',
}
COMMAND_CASES = [   # arguments, exit status, a line the output holds
    (["--help"], 0, "SUBCOMMANDS:"),
    (["check", "good.routes"], 0, "2 routes, no problems"),
    (["check", "bad.routes"], 1, "bad.routes:2:5: 'GET /users/:other' conflicts with 'GET /users/:id' (line 1)"),
    (["check", "none.routes"], 2, "interlock: cannot read none.routes"),
    (["explain", "good.routes", "/users/7", "-X", "GET"], 0, "/users/7 -> line 1"),
    (["match", "good.routes", "-X", "GET", "/users/7", "/nowhere"], 0, '{"uri":"/nowhere","status":"not found"}'),
    (["match", "good.routes", "/a%zz"], 1, '{"uri":"/a%zz","error":"bad percent-escape in path","offset":2}'),
    (["url", "good.routes", "user", "id=9"], 0, "/users/9"),
    (["url", "good.routes", "nope"], 1, "no route is named 'nope'"),
    (["count", "--json", "good.routes", "access.log"], 0, '"unmatched":[{"request":"/nowhere","count":1}]'),
    (["nonsense"], 64, "Unexpected argument 'nonsense'"),
]


def reference_command() -> Path:
    """The command the CMake build made, which the wheel carries a stripped copy of."""
    for build in (PACKAGE.parents[1] / "build", PACKAGE / "build" / "cmake"):
        if (build / "bin" / "interlock").is_file():
            return build / "bin" / "interlock"
    pytest.fail("no interlock command in the CMake build the wheel was made from")


def test_installed_wheel_gives_the_interlock_command(installed, tmp_path: Path) -> None:
    """`interlock` on PATH (the console script) and `python -m interlock`, in the environment the
    wheel was installed into and nowhere else, run the command the CMake build makes: the same
    subcommands, output and exit status."""
    env_dir, environment = installed
    for name, text in COMMAND_FILES.items():
        (tmp_path / name).write_text(text)
    entry = subprocess.run(["/bin/sh", "-c", "command -v interlock"], env=environment, capture_output=True, text=True)
    assert entry.stdout.strip() == str(env_dir / "bin" / "interlock")
    runs = {"script": ["interlock"], "module": [str(env_dir / "bin" / "python"), "-m", "interlock"],
            "cmake build": [str(reference_command())]}
    for arguments, status, wanted in COMMAND_CASES:
        outputs = {}
        for how, command in runs.items():
            out = subprocess.run(command + arguments, env=environment, cwd=tmp_path, capture_output=True, text=True)
            outputs[how] = (out.returncode, out.stdout, out.stderr)
        assert outputs["script"] == outputs["module"] == outputs["cmake build"], (arguments, outputs)
        returncode, stdout, stderr = outputs["script"]
        assert returncode == status and wanted in stdout + stderr, (arguments, outputs["script"])
    # Standard input reaches the command.
    out = subprocess.run(["interlock", "match", "good.routes"], input="myapp://settings\n", env=environment,
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0 and '"name":"settings"' in out.stdout, out


def test_pip_refuses_the_wheel_for_another_platform(installed, built_wheel: Path, tmp_path: Path) -> None:
    """An older glibc (manylinux2014 = 2.17) or another architecture: pip's own refusal, by the tag."""
    env_dir, environment = installed
    for platform in ("manylinux2014_x86_64", "manylinux_2_34_aarch64"):
        out = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--no-deps",
                              "--only-binary", ":all:", "--platform", platform, "--target", str(tmp_path / platform),
                              str(built_wheel)], env=environment, capture_output=True, text=True)
        assert out.returncode != 0
        assert "is not a supported wheel on this platform" in out.stderr, out.stderr
