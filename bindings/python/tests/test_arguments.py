"""What the package does with arguments a newcomer gets wrong (issue 31, "the defects a newcomer
hit"): a route parameter called `name`, integers too wide for their C type, removed parameters,
wrong types, and telling "no route" from "not under this method"."""

from __future__ import annotations

import re

import pytest

import interlock
from interlock import Status

# ----------------------------------------------------------------------------------------------
# The route name is positional-only: a parameter may be called `name`


def test_url_for_and_redirect_to_fill_a_parameter_called_name():
    router = interlock.Router()
    router.add_route("/users/:name", lambda request: f"user {request.params['name']}", name="user")
    assert router.url_for("user", name="ada") == "/users/ada"

    def legacy(request, next):
        if request.path == "/old":
            return request.redirect_to("user", name="grace")
        return next(request)
    router.add_filter(legacy)
    result = router.resolve("/old")
    assert result.status is Status.OK and result.response.body == b"user grace"
    assert result.params == {"name": "grace"}


# ----------------------------------------------------------------------------------------------
# url_for's values: a str or an int; None leaves the parameter out; anything else a TypeError
# (str() of it made "/product/None" and "/product/b'ab'")


def _shop():
    router = interlock.Router()
    router.add_route("/product/:sku", lambda request: request.params["sku"], name="product")
    router.add_route("/list(/page/:n(\\d+))", lambda request: "list", name="list")
    return router


def test_url_for_takes_a_str_or_an_int_and_none_leaves_a_parameter_out():
    import enum

    class Size(enum.IntEnum):
        LARGE = 3

    router = _shop()
    assert router.url_for("product", sku="ab") == "/product/ab"
    assert router.url_for("product", sku=42) == "/product/42"
    assert router.url_for("list", n=Size.LARGE) == "/list/page/3"
    assert router.url_for("list", n=None) == "/list"
    with pytest.raises(interlock.InvalidArgumentError, match="missing parameter 'sku' for route 'product'"):
        router.url_for("product", sku=None)


@pytest.mark.parametrize("value", [b"ab", True, 1.5, ["a"], object()])
def test_url_for_and_redirect_to_refuse_other_values_naming_the_parameter(value):
    router = _shop()
    with pytest.raises(TypeError, match=r"parameter 'sku' must be a str or an int \(None to leave it out\), not "
                       + type(value).__name__):
        router.url_for("product", sku=value)
    seen = []

    def legacy(request, next):
        if request.path == "/old":
            try:
                return request.redirect_to("product", sku=value)
            except TypeError as error:
                seen.append(str(error))
                return next(request)
        return next(request)
    router.add_filter(legacy)
    router.resolve("/old")
    assert seen == [f"parameter 'sku' must be a str or an int (None to leave it out), not {type(value).__name__}"]


def test_url_for_refuses_a_parameter_the_route_does_not_have():
    router = _shop()
    with pytest.raises(interlock.InvalidArgumentError, match=r"route 'product' has no parameter 'colour' \(it has 'sku'\)"):
        router.url_for("product", sku="ab", colour="red")
    with pytest.raises(interlock.InvalidArgumentError, match="route 'list' has no parameter 'page'"):
        router.url_for("list", page=2)
    assert router.url_for("product", sku="ab", colour=None) == "/product/ab"    # None: not given


# ----------------------------------------------------------------------------------------------
# Integers: ctypes cuts an int to its C type's width without a word; each is checked first


def _router_with_a_route():
    router = interlock.Router()
    router.add_route("/a", lambda request: None, name="a")
    return router


@pytest.mark.parametrize("what, low, high, call", [
    ("redirects", 0, 2**32 - 1, lambda r: r.set_limits(2**32, 3)),
    ("retries", 0, 2**32 - 1, lambda r: r.set_limits(3, -1)),
    ("limit", 0, 2**32 - 1, lambda r: r.set_match_limit(2**32)),
    ("route", 0, 2**32 - 1, lambda r: r.add_request_interceptor(lambda q: None, route=2**32 + 1)),
    ("route", 0, 2**32 - 1, lambda r: r.add_response_interceptor(lambda q: None, route=-1)),
    ("status", -2**31, 2**31 - 1, lambda r: interlock.Response(10**30)),
    ("allowed's start", -2**31, 2**31 - 1, lambda r: interlock.ValidateStatus(range(-2**40, 300))),
    ("allowed's last status", -2**31, 2**31 - 1, lambda r: interlock.ValidateStatus(range(200, 2**31 + 1))),
])
def test_an_int_out_of_its_c_range_is_refused_naming_the_argument_and_the_range(what, low, high, call):
    router = _router_with_a_route()
    with pytest.raises(interlock.InvalidArgumentError, match=f"^{re.escape(what)} -?\\d+ is outside {low}\\.\\.\\.{high}$") as e:
        call(router)
    assert e.value.code == -1                                  # ILK_EINVAL


def test_a_refused_int_changes_nothing():
    # Before the check, set_limits(2**32, 3) set the redirect limit to 0 (2**32 cut to 32 bits)
    # and route=2**32 + 1 scoped the interceptor to route 1.
    router = _router_with_a_route()
    router.add_route("/b", lambda request: "b")
    router.add_filter(lambda request, next: request.redirect("/b") if request.path == "/a" else next(request))
    seen = []
    with pytest.raises(interlock.InvalidArgumentError):
        router.set_limits(2**32, 3)
    with pytest.raises(interlock.InvalidArgumentError):
        router.add_request_interceptor(lambda request: seen.append(request.path), route=2**32 + 1)
    result = router.resolve("/a")
    assert result.status is Status.OK and result.redirects == ["/b"] and result.response.body == b"b"
    assert seen == []


@pytest.mark.parametrize("returned", [10**30, 2**32 + 200, -2**31 - 1])
def test_a_destination_returning_a_status_too_wide_for_an_int_fails_the_resolve(returned):
    # 10**30 became 1073741824, and 2**32 + 200 became 200.
    router = interlock.Router()
    router.add_route("/a", lambda request: returned)
    with pytest.raises(interlock.InvalidArgumentError, match=f"^status {returned} is outside -2147483648"):
        router.resolve("/a")


@pytest.mark.parametrize("status", [99, 600, 0, -200, 2**31 - 1])
@pytest.mark.parametrize("how", ["returned", "response", "interceptor"])
def test_a_status_outside_100_to_599_is_refused_by_the_library(status, how):
    """Python checks the C int's range only; 100...599 is the library's rule (ILK_EINVAL from
    ilk_response_set_status), reaching Python as InvalidArgumentError from the resolve."""
    router = interlock.Router()
    if how == "returned":
        router.add_route("/a", lambda request: status)
    elif how == "response":
        router.add_route("/a", lambda request: interlock.Response(status, b"x"))
    else:
        router.add_route("/a", lambda request: "x")

        def change(response):
            response.status = status
        router.add_response_interceptor(change)
    with pytest.raises(interlock.InvalidArgumentError, match=f"status {status} is outside 100...599"):
        router.resolve("/a")
    assert interlock.Response(status).status == status     # a value: checked when the library gets it


@pytest.mark.parametrize("what, call", [
    ("redirects", lambda r: r.set_limits(True, 3)),
    ("retries", lambda r: r.set_limits(3, 2.0)),
    ("limit", lambda r: r.set_match_limit("100")),
    ("route", lambda r: r.add_request_interceptor(lambda q: None, route=True)),
    ("route", lambda r: r.add_response_interceptor(lambda q: None, route=1.0)),
    ("status", lambda r: interlock.Response("200")),
    ("status", lambda r: interlock.Response(True)),
])
def test_a_bool_or_what_is_no_int_where_an_int_is_taken_is_a_type_error_naming_it(what, call):
    router = _router_with_a_route()
    with pytest.raises(TypeError, match=f"^{what} must be "):
        call(router)


def test_an_int_in_all_but_type_is_taken():
    from http import HTTPStatus

    class Index:
        def __index__(self):
            return 4
    router = _router_with_a_route()
    router.set_limits(Index(), Index())
    router.add_route("/c", lambda request: HTTPStatus.CREATED)
    assert router.resolve("/c").response.status == 201
    assert interlock.Response(HTTPStatus.ACCEPTED).status == 202


# ----------------------------------------------------------------------------------------------
# Removing a parameter reaches the destination


@pytest.mark.parametrize("remove", [
    lambda params: params.__delitem__("id"),
    lambda params: params.pop("id"),
    lambda params: params.popitem(),
])
@pytest.mark.parametrize("where", ["request interceptor", "filter"])
def test_a_parameter_removed_in_a_callback_is_gone_for_the_destination(remove, where):
    router = interlock.Router()
    seen = []
    router.add_route("/users/:id", lambda request: seen.append(dict(request.params)))
    if where == "filter":
        def drop(request, next):
            remove(request.params)
            return next(request)
        router.add_filter(drop)
    else:
        router.add_request_interceptor(lambda request: remove(request.params))
    result = router.resolve("/users/7")
    assert seen == [{}]
    if where == "request interceptor":      # (a filter's changes are for the stages after it)
        assert result.params == {}


def _clear_and_set(params):
    params.clear()
    params["d"] = "4"


def _remove_and_set_again(params):
    del params["a"]
    params["a"] = "again"


@pytest.mark.parametrize("change, expected", [
    (_clear_and_set, {"d": "4"}),
    (_remove_and_set_again, {"a": "again", "b": "2", "c": "3"}),
    (lambda params: [params.pop(k) for k in ("c", "a")], {"b": "2"}),
    (lambda params: params.pop("nothing", None), {"a": "1", "b": "2", "c": "3"}),
])
def test_every_way_of_removing_parameters_reaches_the_destination(change, expected):
    router = interlock.Router()
    seen = []
    router.add_route("/p/:a/:b/:c", lambda request: seen.append(dict(request.params)))
    router.add_request_interceptor(lambda request: change(request.params))
    assert router.resolve("/p/1/2/3").params == expected
    assert seen == [expected]


@pytest.mark.parametrize("replacement, expected", [
    ({"a": "x"}, {"a": "x"}),
    ({}, {}),
])
def test_parameters_replaced_by_a_new_dict_are_that_dict(replacement, expected):
    router = interlock.Router()
    seen = []
    router.add_route("/p/:a/:b", lambda request: seen.append(dict(request.params)))

    def replace(request, next):
        request.params = dict(replacement)
        return next(request)
    router.add_filter(replace)
    router.resolve("/p/1/2")
    assert seen == [expected]


def test_a_removed_parameter_stays_removed_through_later_callbacks():
    router = interlock.Router()
    seen = []
    router.add_route("/u/:id/:tab", lambda request: seen.append(("destination", dict(request.params))))
    router.add_request_interceptor(lambda request: request.params.pop("tab"))
    router.add_request_interceptor(lambda request: seen.append(("interceptor", dict(request.params))))

    def filter_(request, next):
        seen.append(("filter", dict(request.params)))
        request.params["extra"] = "1"
        return next(request)
    router.add_filter(filter_)
    router.resolve("/u/1/info")
    assert seen == [("interceptor", {"id": "1"}), ("filter", {"id": "1"}),
                    ("destination", {"id": "1", "extra": "1"})]


# ----------------------------------------------------------------------------------------------
# Wrong types: a TypeError naming the argument, at the call that got it


def _named_router():
    router = interlock.Router()
    router.add_route("GET /a", lambda request: None, name="a")
    return router


@pytest.mark.parametrize("what, call", [
    ("URI", lambda r: r.match(5)),
    ("URI", lambda r: r.match(b"/a")),
    ("method", lambda r: r.match("/a", 5)),
    ("method", lambda r: r.match("/a", ["GET"])),
    ("URI", lambda r: r.resolve(None)),
    ("method", lambda r: r.resolve("/a", b"GET")),
    ("uris", lambda r: r.match_many("/a")),
    ("uris", lambda r: r.match_many(b"/a")),
    ("uris", lambda r: r.match_many(5)),
    ("uris", lambda r: r.match_many(u for u in ["/a"])),
    ("URI 1", lambda r: r.match_many(["/a", 5])),
    ("method", lambda r: r.match_many(["/a"], 5)),
    ("method", lambda r: r.match_many(["/a"], b"GET")),
    ("method 1", lambda r: r.match_many(["/a", "/a"], ["GET", 5])),
    ("pattern", lambda r: r.add_route(5)),
    ("pattern", lambda r: r.add_route(None)),
    ("fn (the destination)", lambda r: r.add_route("/b", "not callable")),
    ("route name", lambda r: r.add_route("/b", name=5)),
    ("guard", lambda r: r.add_route("/b", lambda request: None, guard=True)),
    ("guard", lambda r: r.route("/b", guard=5)),
    ("pattern", lambda r: r.route(b"/b")),
    ("fn (the destination)", lambda r: r.route("/b")(5)),
    ("fn (the default destination)", lambda r: r.default(5)),
    ("fn (the filter)", lambda r: r.add_filter(5)),
    ("interceptor", lambda r: r.add_request_interceptor(5)),
    ("interceptor", lambda r: r.add_response_interceptor(object())),
    ("route", lambda r: r.add_request_interceptor(lambda q: None, route=["a"])),
    ("route name", lambda r: r.url_for(5)),
    ("route name", lambda r: r.url_for(None)),
    ("body", lambda r: interlock.Response(body=123)),
    ("body", lambda r: interlock.Response(200, 1.5)),
    ("headers", lambda r: interlock.Response(headers=5)),
    ("headers", lambda r: interlock.Response(headers="X-A: b")),
    ("each of headers", lambda r: interlock.Response(headers=[("X-A", "b", "c")])),
    ("header 'X-A'", lambda r: interlock.Response(headers=[("X-A", 1)])),
    ("header name", lambda r: interlock.Response(headers={1: "b"})),
    ("case_insensitive", lambda r: interlock.Router(case_insensitive="yes")),
    ("strict_slash", lambda r: interlock.Router(strict_slash=None)),
    ("sink", lambda r: interlock.LoggingInterceptor(sink="stderr")),
    ("allowed", lambda r: interlock.ValidateStatus((200, 300))),
    ("a", lambda r: interlock.chain_before(5, lambda q: None)),
    ("b", lambda r: interlock.chain_after(lambda q: None, 5)),
    ("interceptors[1]", lambda r: interlock.chain_in_order([lambda q: None, "x"])),
    ("interceptors", lambda r: interlock.chain_in_order(5)),
    ("MatchList index", lambda r: r.match_many(["/a"])["0"]),
    ("pairs", lambda r: interlock.QueryDict(5)),
    ("each of pairs", lambda r: interlock.QueryDict(["ab"])),
    ("query 'a'", lambda r: interlock.QueryDict([("a", 1)])),
])
def test_a_wrong_type_is_a_type_error_naming_the_argument_at_the_call(what, call):
    router = _named_router()
    with pytest.raises(TypeError, match=f"^{re.escape(what)} must be ") as e:
        call(router)
    assert not isinstance(e.value, AttributeError)
    # Nothing was added on the way.
    assert len(router) == 1 and router.match("/b") is None


def _response_interceptor_setting(field, value):
    def change(response):
        setattr(response, field, value)
    return lambda router: router.add_response_interceptor(change)


def _replace_params(request):
    request.params = [("id", "1")]


@pytest.mark.parametrize("what, install", [
    ("uri", lambda r: r.add_filter(lambda request, next: request.redirect(5))),
    ("route name", lambda r: r.add_filter(lambda request, next: request.redirect_to(None))),
    ("response body", _response_interceptor_setting("body", 5)),
    ("response status", _response_interceptor_setting("status", "404")),
    ("response headers", _response_interceptor_setting("headers", 5)),
    ("request.params", lambda r: r.add_request_interceptor(_replace_params)),
])
def test_a_wrong_type_a_callback_hands_over_is_a_type_error_naming_it(what, install):
    router = _named_router()
    install(router)
    with pytest.raises(TypeError, match=f"^{re.escape(what)} must be "):
        router.resolve("/a")


# ----------------------------------------------------------------------------------------------
# No route, or not under this method


def test_match_tells_no_route_from_a_method_not_allowed():
    router = interlock.Router()
    router.add_route("GET /x")
    router.add_route("PUT /x")
    router.add_route("/any")
    assert router.match("/nothing", "POST") is None
    with pytest.raises(interlock.MethodNotAllowedError) as e:
        router.match("/x", "POST")
    error = e.value
    assert str(error) == "method POST not allowed for /x; allowed: GET, PUT"
    assert error.allowed == ("GET", "PUT") and error.code == 2   # ILK_METHOD_NOT_ALLOWED
    assert isinstance(error, interlock.Error) and isinstance(error, LookupError)
    assert router.resolve("/x", "POST").allowed == list(error.allowed)
    assert router.match("/x", "PUT").route_id == 2 and router.match("/x").route_id == 1
    assert router.match("/any", "POST").route_id == 3


def test_match_many_tells_no_route_from_a_method_not_allowed():
    router = interlock.Router()
    router.add_route("GET /x")
    router.add_route("GET /u/:id")
    uris = ["/x", "/nothing", "/u/1", "/x"]
    for matches in (router.match_many(uris, "POST"), router.match_many(uris, ["POST", "GET", "DELETE", None])):
        assert [m is None for m in matches][:3] == [True, True, True]
        assert [matches.status(i) for i in range(3)] == [Status.METHOD_NOT_ALLOWED, Status.NOT_FOUND,
                                                         Status.METHOD_NOT_ALLOWED]
    assert matches.status(3) is Status.OK and matches.status(-1) is Status.OK and matches[3].route_id == 1
    with pytest.raises(IndexError):
        matches.status(4)
