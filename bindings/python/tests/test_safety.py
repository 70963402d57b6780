import gc
import sys
import threading
import weakref

import pytest

import interlock
from interlock import Status


class Boom(Exception):
    pass


@pytest.mark.parametrize("stage", ["destination", "filter", "guard", "request", "response", "default"])
def test_exceptions_from_every_kind_of_callback_are_reraised(stage):
    router = interlock.Router()

    def fail(*_args):
        raise Boom(f"from {stage}")

    def ok(*_args):
        return None

    router.add_route("/a", fail if stage == "destination" else ok, guard=fail if stage == "guard" else (lambda r: True))
    router.add_filter(fail if stage == "filter" else (lambda req, nxt: nxt(req)))
    router.add_request_interceptor(fail if stage == "request" else ok)
    router.add_response_interceptor(fail if stage == "response" else ok)
    router.default(fail if stage == "default" else ok)
    with pytest.raises(Boom, match=f"from {stage}") as info:
        router.resolve("/nothing" if stage == "default" else "/a")
    # The traceback reaches into the callback that raised.
    assert any(frame.name == "fail" for frame in info.traceback)
    # The router stays usable: the same resolve fails the same way again, lookups work.
    with pytest.raises(Boom):
        router.resolve("/nothing" if stage == "default" else "/a")
    assert router.match("/a").route_id == 1


def test_callbacks_stay_alive_and_are_released_with_the_router():
    router = interlock.Router()

    class Destination:
        def __call__(self, request):
            return "alive"

    destination = Destination()
    ref = weakref.ref(destination)
    router.add_route("/a", destination)
    router.add_request_interceptor(lambda r: None)
    del destination
    gc.collect()
    assert ref() is not None
    assert router.resolve("/a").response.body == b"alive"
    del router
    gc.collect()
    assert ref() is None


def test_resolving_from_several_threads():
    router = interlock.Router()
    router.add_route("/n/:n", lambda r: r.params["n"] + ":" + str(r.state.setdefault("k", r.params["n"])))
    router.add_request_interceptor(lambda r: r.metadata.update(seen="1"))
    errors = []

    def work(t):
        try:
            for i in range(300):
                n = f"{t}-{i}"
                result = router.resolve(f"/n/{n}")
                assert result.response.body == f"{n}:{n}".encode()
                assert router.match(f"/n/{n}").params == {"n": n}
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_many_resolves_keep_memory_flat():
    router = interlock.Router()
    router.add_route("/u/:id", lambda r: "x" * 100)
    router.add_request_interceptor(lambda r: r.metadata.update(k="v"))
    router.add_response_interceptor(lambda resp: None)
    router.add_filter(lambda req, nxt: nxt(req))
    for i in range(3000):
        router.resolve(f"/u/{i}")
        router.match(f"/u/{i}")
    gc.collect()
    before = rss_kib()
    for i in range(30000):
        router.resolve(f"/u/{i}")
        router.match(f"/u/{i}")
    gc.collect()
    growth = rss_kib() - before
    assert growth < 4096, f"RSS grew by {growth} KiB over 30,000 resolves"
    assert sys.getrefcount(router) < 10
