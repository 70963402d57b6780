"""The package's view of the C contract is generated from include/interlock.h (interlock/_abi.py,
by Tools/headergen.py): the committed file is what a fresh run makes of the header, a change to the
header changes it, and the package's own names for the contract (Status, the error classes, the
hot path's function objects) are the generated ones."""

from __future__ import annotations

import ctypes
import importlib.util
import re
import sys

import pytest

import interlock
from interlock import _abi, _errors, _native

from conftest import ROOT

sys.path.insert(0, str(ROOT / "Tools"))
import headergen  # noqa: E402

HEADER = ROOT / "include" / "interlock.h"


def generated(header_text: str):
    """The module the generator makes of `header_text`, loaded."""
    source = headergen.python(headergen.parse(header_text))
    spec = importlib.util.spec_from_loader("generated_abi", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, "generated_abi", "exec"), module.__dict__)
    return module


def test_the_committed_declarations_are_a_fresh_run():
    assert (ROOT / "bindings/python/interlock/_abi.py").read_text() == headergen.python(headergen.read(HEADER)), \
        "interlock/_abi.py is stale: run `make python-abi` and commit it"


def test_every_function_of_the_header_is_declared():
    names = {f.name for f in headergen.read(HEADER).functions}
    assert names == {name for name, _, _ in _abi.PROTOTYPES} and len(names) > 100
    for name in names:
        assert getattr(_native.lib, name).argtypes is not None, name


@pytest.mark.parametrize("pattern, replacement, check", [
    (r"(#define ILK_EURI\s+)\(-4\)", r"\1(-9)", lambda m: m.EURI == -9),
    (r"(#define ILK_CASE_INSENSITIVE\s+)0x1u", r"\g<1>0x4u", lambda m: m.CASE_INSENSITIVE == 4),
    (r"size_t first_error;", "uint32_t first_error;",
     lambda m: dict(m.MatchBatchView._fields_)["first_error"] is ctypes.c_uint32),
    (r"(int ilk_router_set_match_limit\(ilk_router \*router, )uint32_t", r"\1size_t",
     lambda m: dict((n, a) for n, _, a in m.PROTOTYPES)["ilk_router_set_match_limit"][1] is ctypes.c_size_t),
    (r"\(\*ilk_guard_fn\)\(const ilk_request \*request,", "(*ilk_guard_fn)(const ilk_request *request, int flags,",
     lambda m: len(m.GUARD_FN._argtypes_) == 3),
])
def test_a_change_to_the_header_changes_the_package(pattern, replacement, check):
    """A fact changed in the header alone reaches the package through the generator, with no other edit."""
    text = HEADER.read_text()
    changed, count = re.subn(pattern, replacement, text)
    assert count == 1, pattern
    assert not check(generated(text)) and check(generated(changed))


def test_status_and_errors_are_the_headers():
    for status in interlock.Status:
        assert status.value == getattr(_abi, "ECALLBACK" if status.name == "ERROR" else status.name), status
    codes = {getattr(_abi, name) for name in dir(_abi) if re.fullmatch(r"E[A-Z]+", name)}
    assert set(_errors._ERRORS) <= codes
    assert _errors._ERRORS[_abi.EINVAL] is interlock.InvalidArgumentError
    assert _errors._ERRORS[_abi.ENOROUTE] is interlock.UnknownRouteError


def test_the_hot_paths_function_objects_keep_the_headers_types():
    class View(ctypes.c_void_p):
        pass
    assert _native.unlocked("ilk_result_request", view=View).restype is View
    with pytest.raises(TypeError, match="no view"):
        _native.unlocked("ilk_router_match_packed", view=View)
    assert _native.unlocked("ilk_router_match_packed", typed=False).restype is ctypes.c_int64


def test_a_callback_type_takes_none_as_null_and_refuses_another_callback_type():
    assert _abi.GUARD_FN.from_param(None) is None
    with pytest.raises(TypeError):
        _abi.GUARD_FN.from_param(_abi.FREE_FN(lambda p: None))
