"""Deep-link routing from Python: routes, a filter, a guard with its pending link replayed after a
"login", interceptors, and the trace of each resolve. Run from a checkout after `make build`, or
anywhere after `pip install ./bindings/python`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))

import interlock  # noqa: E402

router = interlock.Router()
session = {"user": None}


@router.route("myapp://product/:sku", name="product")
def product(request):
    campaign = request.metadata.get("campaign")
    return f"Product {request.params['sku']}" + (f" via {campaign}" if campaign else "")


@router.route("myapp://account/:section", name="account", guard=lambda request: session["user"] is not None)
def account(request):
    return f"Account {request.params['section']} for {session['user']}"


@router.default
def home(request):
    return interlock.Response(404, "Home")


@router.filter
def legacy_links(request, next):
    if request.path.startswith("/old-product/"):
        return request.redirect_to("product", sku=request.path.rsplit("/", 1)[-1])
    return next(request)


def campaign(request):
    if "utm" in request.query:
        request.metadata["campaign"] = request.query["utm"]


router.add_request_interceptor(campaign, route="product")
logger = interlock.LoggingInterceptor(lambda line: print("    log", line))
router.add_request_interceptor(logger)
router.add_response_interceptor(interlock.chain_before(logger, interlock.ValidateStatus(range(200, 500))))


def show(uri: str, result: interlock.Result) -> None:
    print(f"{uri}\n  => {result.status.name}: {result.response.body.decode()!r}")
    for entry in result.trace:
        print(f"     {entry.stage:<21}{entry.name:<34}{entry.decision}")
    if router.pending_link:
        print(f"     pending link: {router.pending_link}")
    print()


for uri in ["myapp://product/X-100?utm=spring", "myapp://old-product/X-200",
            "myapp://account/billing?from=push", "myapp://nowhere"]:
    show(uri, router.resolve(uri))

print("-- the user logs in; the pending link is replayed --\n")
session["user"] = "ada"
link = router.pending_link
show(link, router.replay_pending_link())

print("match_many over a log of links:")
for uri, m in zip(["myapp://product/A", "myapp://account/x", "myapp://zzz"],
                  router.match_many(["myapp://product/A", "myapp://account/x", "myapp://zzz"])):
    print(f"  {uri:<22} -> {m.route + ' ' + str(m.params) if m else 'no route'}")
