/**
 * @file
 * interlock.h: the C interface of Interlock, an embeddable routing core.
 *
 * Interlock compiles route patterns ("GET /repos/:owner/:repo", "myapp://user/:id(\d+)") into
 * JIT-compiled PCRE2 regexes shaped as a prefix tree and resolves URIs against them: deep links,
 * web paths and internal route names.
 *
 * Conventions (after SQLite and libgit2):
 *   - Every symbol starts with ilk_, every type with ilk_, every constant with ILK_.
 *   - Handles are opaque. Objects are made by *_new (the out-parameter first) and released by the
 *     matching *_free; every *_free accepts NULL.
 *   - Functions that can fail return an int: ILK_OK (0) on success, a negative ILK_E* code on
 *     error, or a positive code for an expected miss (ILK_NOT_FOUND, ILK_METHOD_NOT_ALLOWED).
 *     A NULL where a pointer is required gives ILK_EINVAL, never a crash.
 *     A size_t count or length past PTRDIFF_MAX (no array has that many elements) gives
 *     ILK_EINVAL and an index that large is out of range, never a crash; a capacity that large
 *     is taken as room enough.
 *   - After an error, ilk_errmsg() and ilk_erroffset() describe it, per thread.
 *   - Strings go in as NUL-terminated UTF-8 unless a length is passed. One the library keeps or
 *     compares as data (a pattern, route or stage name, key, value, header, URI) that is not valid
 *     UTF-8 gives ILK_EINVAL (ILK_EPATTERN, ILK_EURI for patterns and URIs) and ilk_erroffset()
 *     says where the ill-formed sequence begins; a message (ilk_*_set_error) has such bytes
 *     replaced by U+FFFD. A lookup by an ill-formed key finds nothing. Strings that come out are
 *     borrowed: each function says how long they stay valid. Never free them.
 *   - Userdata given with an ilk_free_fn is owned by the library from a successful call on, and
 *     its free function is called exactly once, when the owner lets go of it (each function says
 *     when). If the call fails, ownership stays with the caller and nothing is freed.
 *
 * Threads: a router may be used from many threads at once: ilk_router_match and
 * ilk_router_resolve may run concurrently with each other and with ilk_router_add_route; a lookup
 * sees the table before or after an addition, never half of it. An ilk_match belongs to one thread
 * at a time. Callbacks may call back into the router (nested resolves, adding routes).
 */
#ifndef INTERLOCK_H
#define INTERLOCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Version
 * ------------------------------------------------------------------------------------------- */

/** @defgroup version Version
 * The project's one statement of its version: the library, the CMake and pkg-config packages and
 * the Python package take it from here (tests check that they do). Semantic versioning: while
 * MAJOR is 0, each MINOR release may change the ABI, and the SONAME (libinterlock.so.0.MINOR)
 * changes with it; from 1.0 on, only a new MAJOR does (libinterlock.so.MAJOR). */
/** @{ */
/** MAJOR: a new one may break the API and the ABI (from 1.0 on). */
#define ILK_VERSION_MAJOR 0
/** MINOR: while MAJOR is 0, a new one may change the ABI. */
#define ILK_VERSION_MINOR 3
/** PATCH: fixes only; the ABI stays. */
#define ILK_VERSION_PATCH 0
/** Internal to ILK_VERSION: `x` as a string literal, unexpanded. */
#define ILK_STRINGIFY_(x) #x
/** Internal to ILK_VERSION: `x`, macro-expanded, as a string literal. */
#define ILK_STRINGIFY(x) ILK_STRINGIFY_(x)
/** The version as a string, "MAJOR.MINOR.PATCH". */
#define ILK_VERSION \
  ILK_STRINGIFY(ILK_VERSION_MAJOR) "." ILK_STRINGIFY(ILK_VERSION_MINOR) "." ILK_STRINGIFY(ILK_VERSION_PATCH)
/** The version as a number: MAJOR * 1000000 + MINOR * 1000 + PATCH. */
#define ILK_VERSION_NUMBER (ILK_VERSION_MAJOR * 1000000 + ILK_VERSION_MINOR * 1000 + ILK_VERSION_PATCH)

/** The library's version string (static storage). Compare with ILK_VERSION to catch a header and
 *  library that do not belong together. */
const char *ilk_version(void);

/** The library's version number, as ILK_VERSION_NUMBER. */
int ilk_version_number(void);

/** @} */

/* ---------------------------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------------------------- */

/** @defgroup status Status codes and errors
 * Return codes, and the message and offset of the last failing call on this thread. */
/** @{ */

#define ILK_OK                  0  /**< Success. */
#define ILK_NOT_FOUND           1  /**< No route matches (a miss, not an error). */
#define ILK_METHOD_NOT_ALLOWED  2  /**< Routes match the path, but only under other methods. */
#define ILK_STOPPED             3  /**< Resolve: a filter stopped the request. */
#define ILK_GUARDED             4  /**< Resolve: the route's guard refused (the link is now pending). */
#define ILK_ABORTED             5  /**< Resolve: an interceptor aborted; see ilk_result_error(). */
#define ILK_REDIRECT_LOOP       6  /**< Resolve: more redirects than the router's limit. */
#define ILK_RETRY_LIMIT         7  /**< Resolve: more retries than the router's limit. */
#define ILK_REDIRECTED          8  /**< From ilk_filter_chain_next: a later filter redirected. */
#define ILK_RETRYING            9  /**< From ilk_filter_chain_next: a response interceptor asked for a retry. */

#define ILK_EINVAL     (-1) /**< An argument is NULL or out of its domain. */
#define ILK_EPATTERN   (-2) /**< A route pattern is malformed; ilk_erroffset() says where. */
#define ILK_ECONFLICT  (-3) /**< A route has the same method, scheme, host and shape as another. */
#define ILK_EURI       (-4) /**< A URI is malformed; ilk_erroffset() says where. */
#define ILK_ENOMEM     (-5) /**< Out of memory. */
#define ILK_ELIMIT     (-6) /**< A limit was reached (route count, pattern size, match work). */
#define ILK_ENOROUTE   (-7) /**< No route has the given id or name. */
#define ILK_ECALLBACK  (-8) /**< A callback reported an error; see ilk_result_error(). */

/** No byte offset: what ilk_erroffset() returns when the last error has no place. */
#define ILK_NO_OFFSET ((size_t)-1)

/** The message of the last error on this thread (thread-local storage, valid until the next
 *  failing call on this thread). "not an error" if no call has failed on this thread. */
const char *ilk_errmsg(void);

/** The byte offset (in the pattern or URI) of the last error on this thread, or ILK_NO_OFFSET.
 *  For ill-formed UTF-8 it is where the sequence begins (its first byte, or the '%' of its
 *  first escape), never past the input's end. */
size_t ilk_erroffset(void);

/** A short English name for a status code, such as "pattern error" (static storage). */
const char *ilk_errstr(int code);

/** @} */

/* ---------------------------------------------------------------------------------------------
 * Types
 * ------------------------------------------------------------------------------------------- */

/** @defgroup types Types
 * The opaque handles, and the callback types every part shares. */
/** @{ */

/** A route table. */
typedef struct ilk_router ilk_router;
/** Per-thread lookup state for ilk_router_match, reused across lookups. */
typedef struct ilk_match ilk_match;
/** A request being resolved, as a destination sees it. */
typedef struct ilk_request ilk_request;
/** The response a destination fills. */
typedef struct ilk_response ilk_response;
/** What ilk_router_resolve produced. */
typedef struct ilk_result ilk_result;
/** The rest of the filter chain, as one filter sees it. */
typedef struct ilk_filter_chain ilk_filter_chain;
/** A request or response interceptor: a first-class, composable value. */
typedef struct ilk_interceptor ilk_interceptor;

/** Releases userdata handed to the library. Called exactly once; may be NULL for none. */
typedef void (*ilk_free_fn)(void *userdata);

/**
 * A route's destination. It reads `request` and fills `response` (status 200, empty body and no
 * headers unless it sets them). Both pointers are valid only during the call. Return ILK_OK, or
 * any other value to report an error (the resolve then ends with ILK_ECALLBACK; set a message with
 * ilk_response_set_error). It may call ilk_router_resolve and ilk_router_add_route on the same
 * router.
 */
typedef int (*ilk_destination_fn)(const ilk_request *request, ilk_response *response, void *userdata);

/** @} */

/** @defgroup callbacks Callbacks
 * What a filter or interceptor callback returns: ILK_CONTINUE, a verb, or a negative value for an
 * error, which ends the resolve with ILK_ECALLBACK (set a message with ilk_request_set_error or
 * ilk_response_set_error). The verbs are 101 and up, apart from every status code, so a filter can
 * return the status ilk_filter_chain_next gave and mean "pass it on". Any other value ends the
 * resolve with ILK_ECALLBACK, and the message names the value and what the callback may return.
 * In every callback (destination, filter, guard, interceptors) the request, response and chain
 * pointers, and the strings read through them, are valid only during the call: the library reuses
 * them afterwards. Copy what must outlive the call. */
/** @{ */
#define ILK_CONTINUE 0    /**< Go on; the value of ILK_OK. A filter: pass on what ilk_filter_chain_next gave. */
#define ILK_STOP     101  /**< A filter: stop here; no destination runs; the result is ILK_STOPPED (see ilk_filter_fn). */
#define ILK_REDIRECT 102  /**< A filter: redirect to the target set with ilk_filter_chain_redirect*. */
#define ILK_ABORT    103  /**< An interceptor: abort; the reason is set with ilk_*_set_error. */
#define ILK_RETRY    104  /**< A response interceptor: retry once every response interceptor ran. */

/**
 * A filter. It does one of three things:
 *   - calls ilk_filter_chain_next(chain, request) exactly once and passes on what it gave, by
 *     returning that status (`return ilk_filter_chain_next(chain, request);`) or ILK_CONTINUE,
 *     which means the same; it may change ilk_filter_chain_response(chain) before it returns;
 *   - returns ILK_STOP without calling it, having written the response to answer with (a 401, a
 *     cached page) to ilk_filter_chain_response(chain) if it wants one;
 *   - sets a target with ilk_filter_chain_redirect / ilk_filter_chain_redirect_to_route and
 *     returns ILK_REDIRECT without calling it.
 * It may change the request's metadata, parameters and state first: the change reaches the stages
 * after it (through the request it passes on), not the resolve's own request
 * (ilk_result_request). A negative value is its error (ILK_ECALLBACK; when next failed, returning
 * what it gave reports next's error). Anything else ends the resolve with ILK_ECALLBACK naming the
 * filter and the value: a status next did not give, ILK_CONTINUE without calling next, ILK_STOP
 * or ILK_REDIRECT after calling it (the destination already ran), ILK_REDIRECT without a target.
 */
typedef int (*ilk_filter_fn)(ilk_request *request, ilk_filter_chain *chain, void *userdata);

/** A guard: 1 allows the request, 0 refuses it (ILK_GUARDED, the link becomes pending), <0 is an error. */
typedef int (*ilk_guard_fn)(const ilk_request *request, void *userdata);

/** A request interceptor: may change the request's metadata, parameters and state; returns
 *  ILK_CONTINUE or ILK_ABORT (reason: ilk_request_set_error), or a negative error. Any other
 *  value ends the resolve with ILK_ECALLBACK naming it. */
typedef int (*ilk_request_interceptor_fn)(ilk_request *request, void *userdata);

/** A response interceptor: may change the response and the request's state; returns
 *  ILK_CONTINUE, ILK_ABORT (reason: ilk_response_set_error) or ILK_RETRY, or a negative error.
 *  Any other value ends the resolve with ILK_ECALLBACK naming it. */
typedef int (*ilk_response_interceptor_fn)(ilk_request *request, ilk_response *response, void *userdata);

/** A line of the logging interceptor (NUL-terminated, valid during the call). */
typedef void (*ilk_log_fn)(const char *line, void *userdata);

/** @} */

/* ---------------------------------------------------------------------------------------------
 * Routers
 * ------------------------------------------------------------------------------------------- */

/** @defgroup routers Routers
 * A route table: make one; add routes with their destinations, filters, guards and interceptors;
 * set its limits; read its routes back; build URIs; keep and replay the pending link. */
/** @{ */

/** Literal segments compare ASCII case-insensitively (constraints stay as written). */
#define ILK_CASE_INSENSITIVE 0x1u
/** A trailing slash is significant: "/a/" and "/a" are different paths. */
#define ILK_STRICT_SLASH     0x2u

/**
 * Creates an empty router in *out. `flags` is 0 or an OR of ILK_CASE_INSENSITIVE and
 * ILK_STRICT_SLASH. Returns ILK_OK, ILK_EINVAL (out is NULL or an unknown flag is set) or
 * ILK_ENOMEM. Free it with ilk_router_free.
 */
int ilk_router_new(ilk_router **out, uint32_t flags);

/**
 * Frees a router and calls the free function of every destination's userdata, every route's data
 * (ilk_router_set_route_data) and the default destination's userdata exactly once (those of
 * removed routes were freed already). No other call on the router may be running or follow. NULL
 * is a no-op. An ilk_match used with this router stays valid and may be used with another router.
 */
void ilk_router_free(ilk_router *router);

/**
 * Adds a route.
 *
 * `pattern` follows the grammar in docs/grammar.md: "[METHOD ][scheme://[host]]path", path segments
 * being literals, ":name", ":name(REGEX)", "*name" or "*" (last only), text and parameters mixed
 * in one segment (":name.json", "v:major(\d+).:minor"), and "(/...)" optional parts.
 * `destination` (may be NULL for a route used only with ilk_router_match) runs when
 * ilk_router_resolve picks the route; `userdata` is passed to it and released with `free_fn`
 * (may be NULL) when the router is freed, or, after ilk_router_remove_route, once no resolve runs
 * the destination. If `route_id` is not NULL it receives the route's id. A router keeps its routes
 * in slots that removals free and later additions reuse, so a router that changes forever works
 * in memory bounded by the most routes it held at once: an id less one holds the slot in its low
 * 22 bits and the slot's generation in the high 10. A router that never removes a route gives 1,
 * 2, 3, ... in the order added. Removing a route bumps its slot's generation, so its id names no
 * route afterwards (ILK_ENOROUTE at every function that takes an id); a slot is reused only while
 * more than 4,096 slots are free, the one freed longest ago first, so an id is given again only
 * after at least 4,194,304 other additions (its slot's generations gone round). 0 is never an id.
 *
 * Returns ILK_OK; ILK_EINVAL if router or pattern is NULL; ILK_EPATTERN for a malformed pattern
 * (ilk_errmsg names the problem, ilk_erroffset gives the byte offset in `pattern`); ILK_ECONFLICT
 * if a route with the same method, scheme, host and path shape exists (the message names it);
 * ILK_ELIMIT past the limits (64 optional variants, optional parts nested 64 deep, 256 segments,
 * 256 parameters, 8 parameters in one segment, a scheme or host of 255 bytes, 4,190,208 routes at once (4,194,304 slots, 4,096 kept free);
 * ilk_erroffset gives the offset of the part too deep or too long). On failure the userdata stays the caller's.
 */
int ilk_router_add_route(ilk_router *router, const char *pattern, ilk_destination_fn destination,
                         void *userdata, ilk_free_fn free_fn, uint32_t *route_id);

/**
 * Sets the destination that ilk_router_resolve runs when no route matches (ILK_NOT_FOUND; a
 * method-not-allowed answer does not go to it). NULL clears it, and then `free_fn`, if given, is
 * called on `userdata` at once. The userdata of a destination it replaces is freed at once, or,
 * if a resolve is running that destination (on another thread, or the destination itself called
 * this), when that resolve ends; the new one when the router is freed or when it is replaced in
 * turn. Returns ILK_OK or ILK_EINVAL.
 */
int ilk_router_set_default(ilk_router *router, ilk_destination_fn destination, void *userdata,
                           ilk_free_fn free_fn);

/**
 * As ilk_router_add_route, and gives the route a name (unique in the router, not empty) for
 * ilk_router_url_for and redirects to named routes. ILK_ECONFLICT if the name is taken.
 */
int ilk_router_add_named_route(ilk_router *router, const char *pattern, const char *name,
                               ilk_destination_fn destination, void *userdata, ilk_free_fn free_fn,
                               uint32_t *route_id);

/**
 * Appends a filter to the router's global chain (every resolve passes through it, in the order
 * added, whether or not a route matched). `name` (copied; NULL for "filter N") appears in the
 * trace. `userdata` is freed with `free_fn` when the router is freed. ILK_OK, or ILK_EINVAL
 * (router or filter NULL, or a name that is not valid UTF-8; then the userdata stays the caller's).
 */
int ilk_router_add_filter(ilk_router *router, const char *name, ilk_filter_fn filter,
                          void *userdata, ilk_free_fn free_fn);

/**
 * Sets the guard of route `route_id` (replacing any; the replaced userdata is freed at once, or
 * when the resolves running that guard end, as for ilk_router_set_default; NULL removes it).
 * ILK_OK, ILK_EINVAL or ILK_ENOROUTE (then the userdata stays the caller's).
 */
int ilk_router_set_guard(ilk_router *router, uint32_t route_id, ilk_guard_fn guard, void *userdata,
                         ilk_free_fn free_fn);

/**
 * Adds an interceptor (request or response, as it was made) to the global scope (`route_id` 0) or
 * to a route's scope. Request interceptors run the route's first, then the global ones; response
 * interceptors the global ones first, then the route's; each scope in the order added. The router
 * takes its own reference: the caller still frees its handle. ILK_OK, ILK_EINVAL, ILK_ENOROUTE.
 */
int ilk_router_add_interceptor(ilk_router *router, const ilk_interceptor *interceptor, uint32_t route_id);

/** The redirects one resolve may take on a router whose limits were not set. */
#define ILK_DEFAULT_REDIRECT_LIMIT 8
/** The retries one resolve may take on a router whose limits were not set. */
#define ILK_DEFAULT_RETRY_LIMIT 3

/**
 * Sets how many redirects (ILK_DEFAULT_REDIRECT_LIMIT unless set) and retries
 * (ILK_DEFAULT_RETRY_LIMIT unless set) one resolve may take. ILK_OK or ILK_EINVAL.
 */
int ilk_router_set_limits(ilk_router *router, unsigned redirect_limit, unsigned retry_limit);

/**
 * Bounds the work a lookup may do on a hostile URI. Each regex a lookup runs (a parameter's
 * constraint, which sees only its own segment, or a part of the table compiled to one regex) may
 * take at most `match_limit` backtracking steps (PCRE2's match limit; 10000 unless set, 0
 * restores that). A lookup runs one for each constrained route it tries (again for its
 * method-not-allowed answer), so its work is bounded by the table's shape times the limit. Past
 * the limit the lookup (ilk_router_match, the batch doors, ilk_router_resolve, the read-back of
 * ilk_router_url_for) gives ILK_ELIMIT, and ilk_errmsg() names the route whose constraint ran
 * out. Each iteration of a repeated group is a step: a constraint such as `[a-z]+(?:-[a-z]+)*` on
 * a segment of n words takes about n. Lookups already running keep the limit they started with.
 * ILK_OK or ILK_EINVAL.
 */
int ilk_router_set_match_limit(ilk_router *router, uint32_t match_limit);

/**
 * Copies the pending link (the last URI a guard refused, not yet taken or replayed) into `buffer`
 * (`capacity` bytes, NUL-terminated, truncated if too small; buffer may be NULL when capacity is
 * 0). Returns its length in bytes, or 0 when no link is pending (or router is NULL).
 */
size_t ilk_router_pending_link(ilk_router *router, char *buffer, size_t capacity);

/**
 * As ilk_router_pending_link, and clears the link if it fit in `buffer` (length < capacity).
 */
size_t ilk_router_take_pending_link(ilk_router *router, char *buffer, size_t capacity);

/**
 * Resolves the pending link again (with the method it came with) and clears it first: it is
 * pending afterwards only if the replay is refused again. Returns as ilk_router_resolve; returns
 * ILK_OK with *out set to NULL when no link is pending.
 */
int ilk_router_replay_pending_link(ilk_router *router, ilk_result **out);

/**
 * Builds the URI of the route called `name` from `count` parameters (`names[i]`, `values[i]`),
 * percent-encoding values and checking constraints, from the variant that holds exactly the
 * parameters given: an optional part is built when it holds a given parameter (itself or in a part
 * nested in it) and left out otherwise, a part without parameters too ("/p(/reviews(/:page))"
 * builds "/p" without page, "/p/reviews/2" with page=2; "/p(/reviews)" builds "/p"). A route
 * with a wildcard host (`*.example.com`) takes its host as the parameter "host" (one or more
 * labels, then the suffix). Writes it NUL-terminated into `buffer` (`capacity` bytes) and its
 * length into *length (may be NULL). Returns ILK_OK; ILK_ENOROUTE for an unknown name;
 * ILK_EINVAL for a missing, empty or invalid parameter, one the route does not have, one given
 * twice, or one whose optional part needs another that is not given (the message names it),
 * values that make a URI the route reads differently (`/o(/:a)(/:b)` given only a=10 builds
 * "/o/10", which it reads as b=10; "/dl/:file.:ext" given file=a.b), a NULL argument, or a
 * buffer too small (then *length still says how many bytes it needs, without the NUL); ILK_ELIMIT if checking a value against its constraint, or reading the URI back,
 * ran past the router's match limit (ilk_router_set_match_limit).
 */
int ilk_router_url_for(ilk_router *router, const char *name, const char *const *names,
                       const char *const *values, size_t count, char *buffer, size_t capacity,
                       size_t *length);

/**
 * Puts the name of route `route_id` in *name (NUL-terminated, valid until the route is removed or
 * replaced or the router freed), or NULL if it has none. Returns ILK_OK, ILK_EINVAL or
 * ILK_ENOROUTE (no route has the id, or it was removed: the message says which).
 */
int ilk_router_route_name(const ilk_router *router, uint32_t route_id, const char **name);

/** The number of routes in the router, removed ones left out (0 for NULL). */
size_t ilk_router_route_count(const ilk_router *router);

/**
 * Puts the pattern of route `route_id` in *pattern (NUL-terminated, valid until the route is
 * removed or replaced or the router freed). Returns ILK_OK, ILK_EINVAL or ILK_ENOROUTE.
 */
int ilk_router_route_pattern(const ilk_router *router, uint32_t route_id, const char **pattern);

/**
 * Puts the id of the route called `name` in *route_id. Returns ILK_OK; ILK_ENOROUTE if no route
 * has that name (the message names it); ILK_EINVAL for a NULL argument.
 */
int ilk_router_route_id(const ilk_router *router, const char *name, uint32_t *route_id);

/**
 * Puts the id of the route in the first slot after the one `after` names (see ilk_router_add_route)
 * in *route_id: with `after` 0, then each id it gives, it visits every route once, removed ones
 * left out, in slot order (the order added until a removed route's slot is reused); `after` may
 * be the id of a route removed meanwhile (its slot stays). Returns ILK_OK;
 * ILK_NOT_FOUND when no route follows (*route_id is left as it was); ILK_EINVAL for a NULL
 * argument.
 */
int ilk_router_next_route(const ilk_router *router, uint32_t after, uint32_t *route_id);

/**
 * Removes route `route_id`: lookups on the calling thread no longer find it once the call returns,
 * and on other threads once the table without it is compiled (until then they may answer from the
 * table before; a resolve never runs a removed route's callbacks), its name is free again, and its
 * id names no route (its slot, reused later, gets another id: see ilk_router_add_route). Its
 * destination's userdata, its
 * guard's, its interceptors' and its data are freed exactly once, when no resolve still runs them
 * (at once if none does). Only the part of the table the route lived in is compiled again.
 * Returns ILK_OK; ILK_ENOROUTE if no route has the id or it was removed already (the message
 * says which); ILK_EINVAL if router is NULL.
 */
int ilk_router_remove_route(ilk_router *router, uint32_t route_id);

/**
 * Replaces the pattern of route `route_id`, keeping its id, name, destination, guard,
 * interceptors and data: lookups find it by the new pattern, never by both or neither. Returns
 * ILK_OK; ILK_ENOROUTE for an unknown or removed id; ILK_EPATTERN, ILK_ECONFLICT or ILK_ELIMIT as
 * ilk_router_add_route (the route is then unchanged); ILK_EINVAL for a NULL argument.
 */
int ilk_router_replace_route(ilk_router *router, uint32_t route_id, const char *pattern);

/**
 * Sets the host's data of route `route_id` to `data`, released with `free_fn` (may be NULL) when
 * it is set again, the route is removed or the router is freed, but never while a resolve that
 * matched the route still has it. NULL data and free_fn clear it. A match reads it with
 * ilk_match_route_data, a callback with ilk_request_route_data. Returns ILK_OK; ILK_ENOROUTE for
 * an unknown or removed id (the data then stays the caller's); ILK_EINVAL if router is NULL.
 */
int ilk_router_set_route_data(ilk_router *router, uint32_t route_id, void *data, ilk_free_fn free_fn);

/**
 * Compiles what changed since the last lookup now, so that the next lookup does not pay for it
 * (a server calls it after loading its table, before its first request); waits for a compile
 * another thread is making. Returns ILK_OK; ILK_ELIMIT if a part of the table is too large for
 * PCRE2; ILK_ENOMEM; ILK_EINVAL if router is NULL.
 */
int ilk_router_compile(ilk_router *router);

/**
 * Adds every route of a route file (README.md, "Route files": one route a line,
 * "[METHOD ]pattern" then name=... and key=value pairs, # comments), `length` bytes of UTF-8 at
 * `text` (not necessarily NUL-terminated). All or nothing: a file with a bad line adds no route and
 * gives no id away. A route's key=value pairs are its data (read them with
 * ilk_router_route_value); it has no destination until one is set (ilk_router_set_destination,
 * with the id ilk_router_route_id gives for its name). *count (may be NULL) receives the number of
 * routes added, 0 on failure. A method is a first token of upper-case letters followed by the
 * pattern; columns count bytes. Returns ILK_OK; ILK_EPATTERN for a malformed line or pattern, a NUL
 * byte or bytes that are not UTF-8, ILK_ECONFLICT for a route or name that another has (in the
 * router or on an earlier line, which the message names), ILK_ELIMIT past the limits: ilk_errmsg
 * begins "line L, column C:" and ilk_erroffset gives the byte offset in `text`; ILK_EINVAL for a
 * NULL router, or a NULL text with a length.
 */
int ilk_router_load(ilk_router *router, const char *text, size_t length, size_t *count);

/**
 * As ilk_router_load, and puts the ids of the routes added in ids[0...*count - 1], in the file's
 * order: a router that removed routes reuses their slots, so the ids of a load need not follow
 * one another (see ilk_router_add_route). `capacity` is how many ids `ids` holds (one per line of
 * the text is always enough). Returns as ilk_router_load; ILK_ELIMIT, having added nothing, if the
 * file has more routes than `capacity` (*count then says how many); ILK_EINVAL for a NULL ids
 * with a capacity.
 */
int ilk_router_load_ids(ilk_router *router, const char *text, size_t length, uint32_t *ids, size_t capacity,
                        size_t *count);

/**
 * Sets (or replaces) the destination of route `route_id`; `userdata` is passed to it and released
 * with `free_fn` (may be NULL) when the destination is replaced, the route removed or the router
 * freed, never while a resolve runs it. Returns ILK_OK; ILK_ENOROUTE for an unknown or removed id
 * (the userdata then stays the caller's); ILK_EINVAL for a NULL router or destination.
 */
int ilk_router_set_destination(ilk_router *router, uint32_t route_id, ilk_destination_fn destination,
                               void *userdata, ilk_free_fn free_fn);

/**
 * The value of `key` in the data of route `route_id` when that data came from a route file (its
 * key=value pairs), or NULL (no such key, other data, an unknown id, a NULL argument). Valid
 * until the route's data is set again or the route is removed or the router freed.
 */
const char *ilk_router_route_value(const ilk_router *router, uint32_t route_id, const char *key);

/**
 * Explains the lookup of `uri` (`uri_len` bytes of UTF-8) under `method` (NULL or "" for any): the
 * answer ilk_router_match gives, the routes a lookup tries in the order it tries them (at most 200),
 * each with the first thing that kept it from the request, and why the winner beat the next route
 * that would take it. Writes it as one JSON object, NUL-terminated, into `buffer` (`capacity`
 * bytes): {"answer": {"route", "params"} or {"status", "allowed"}, "reason", "candidates": [{"route",
 * "name", "pattern", "form", "takes", "why_not"}], "truncated"} ("form": for a route with optional parts,
 * tried once per form, the form tried; else null). Which routes take the request is the matcher's own
 * answer, from the same compiled table. *length (may be NULL) receives its length
 * without the NUL. Returns ILK_OK; ILK_ELIMIT, having written nothing, if the buffer is too small
 * (call again with *length + 1 bytes); ILK_EURI for a malformed URI (ilk_erroffset says where);
 * ILK_EINVAL for a NULL router or URI, a malformed method, or a NULL buffer that is large enough.
 */
int ilk_router_explain(ilk_router *router, const char *method, const char *uri, size_t uri_len, char *buffer,
                       size_t capacity, size_t *length);

/** @} */

/* ---------------------------------------------------------------------------------------------
 * Matching (the fast path: no callbacks, no heap allocation per lookup)
 * ------------------------------------------------------------------------------------------- */

/** @defgroup matching Matching
 * The fast path: no callbacks, no heap allocation per lookup. */
/** @{ */

/**
 * Creates lookup state in *out, with buffers for the longest URI (64 KiB), so that lookups never
 * allocate (except the first lookup after the router changed, which takes the new table).
 * Use one ilk_match per thread. Returns ILK_OK, ILK_EINVAL or ILK_ENOMEM. Free with ilk_match_free.
 */
int ilk_match_new(ilk_match **out);

/** Frees lookup state. NULL is a no-op. */
void ilk_match_free(ilk_match *m);

/**
 * Looks up `uri` (`uri_len` bytes, not necessarily NUL-terminated) under `method` (NUL-terminated;
 * NULL or "" for any method, at every door) and leaves the answer in `m`.
 *
 * Returns ILK_OK if a route matched (read it with ilk_match_route_id and ilk_match_param*),
 * ILK_NOT_FOUND if none did, ILK_METHOD_NOT_ALLOWED if routes match only under other methods
 * (ilk_match_allowed_*), ILK_EURI for a malformed URI (bad escape, control byte, invalid UTF-8,
 * over 64 KiB; ilk_erroffset gives the byte offset in `uri`), ILK_EINVAL for a NULL argument or a
 * malformed method (over 64 bytes, or holding a byte that is not an HTTP token character:
 * ilk_erroffset gives its offset in `method`; at most 65 bytes of `method` are read),
 * ILK_ELIMIT if a constraint ran past the router's match limit (ilk_router_set_match_limit).
 * A URI that is malformed is reported before a method that is (ILK_EURI, not ILK_EINVAL).
 */
int ilk_router_match(ilk_router *router, const char *method, const char *uri, size_t uri_len,
                     ilk_match *m);

/** The id of the route the last lookup matched, or 0 if it matched none (or m is NULL). */
uint32_t ilk_match_route_id(const ilk_match *m);

/**
 * The data of the route the last lookup matched (ilk_router_set_route_data), or NULL if it has
 * none, the lookup matched none, or m is NULL. Allocates nothing. Read it while the router lives;
 * it is valid until the route's data is set again or the route is removed.
 */
void *ilk_match_route_data(const ilk_match *m);

/** The pattern of the route the last lookup matched, or NULL. Valid until the next lookup. */
const char *ilk_match_pattern(const ilk_match *m);

/** The number of parameters the last lookup bound (0 if it matched none). */
size_t ilk_match_param_count(const ilk_match *m);

/**
 * Gives parameter `i` (0-based, in path order) of the last lookup: its name and its
 * percent-decoded value, both NUL-terminated, valid until the next lookup with `m`. Any of the
 * out-pointers may be NULL. Returns ILK_OK, ILK_EINVAL (m NULL or i out of range).
 */
int ilk_match_param_at(const ilk_match *m, size_t i, const char **name, size_t *name_len,
                       const char **value, size_t *value_len);

/**
 * Gives the decoded value of the parameter called `name` (NUL-terminated, valid until the next
 * lookup). `value` and `value_len` may be NULL. Returns ILK_OK, ILK_NOT_FOUND (no such parameter)
 * or ILK_EINVAL. A parameter in an optional part that was absent is not bound.
 */
int ilk_match_param(const ilk_match *m, const char *name, const char **value, size_t *value_len);

/** After ILK_METHOD_NOT_ALLOWED: the number of methods under which the path matches. */
size_t ilk_match_allowed_count(const ilk_match *m);

/** Method `i` of those, NUL-terminated, valid until the next lookup; NULL if out of range. */
const char *ilk_match_allowed_at(const ilk_match *m, size_t i);

/** @} */

/* ---------------------------------------------------------------------------------------------
 * Interceptors (values: make, compose, add to routers, free)
 * ------------------------------------------------------------------------------------------- */

/** @defgroup interceptors Interceptors
 * Values: make, compose, add to routers, free. */
/** @{ */

/** Makes a request interceptor from a callback. `name` (copied; NULL for "interceptor") appears
 *  in the trace; `userdata` is freed with `free_fn` when the last reference to the interceptor
 *  goes (the caller's handle and every router or composition holding it). ILK_OK or ILK_EINVAL. */
int ilk_interceptor_new_request(ilk_interceptor **out, const char *name, ilk_request_interceptor_fn fn,
                                void *userdata, ilk_free_fn free_fn);

/** Makes a response interceptor from a callback, as ilk_interceptor_new_request. */
int ilk_interceptor_new_response(ilk_interceptor **out, const char *name, ilk_response_interceptor_fn fn,
                                 void *userdata, ilk_free_fn free_fn);

/** `a` then `b` as one interceptor (both of the same kind, else ILK_EINVAL). The composition holds
 *  its own references: free `a` and `b` when you no longer need them yourself. */
int ilk_interceptor_chain_before(ilk_interceptor **out, const ilk_interceptor *a, const ilk_interceptor *b);

/** `b` then `a` as one interceptor: `a` chained after `b`. */
int ilk_interceptor_chain_after(ilk_interceptor **out, const ilk_interceptor *a, const ilk_interceptor *b);

/** `count` interceptors (all of one kind, count >= 1) run in order, as one interceptor. */
int ilk_interceptor_chain_in_order(ilk_interceptor **out, const ilk_interceptor *const *list, size_t count);

/** The built-in logger: one line per request ("-> METHOD uri route=... params=...") from
 *  *request_side and one per response ("<- status N, B bytes for uri") from *response_side, to
 *  `fn` (NULL: standard error). `userdata` is freed when both sides are gone. */
int ilk_interceptor_new_logging(ilk_interceptor **request_side, ilk_interceptor **response_side,
                                ilk_log_fn fn, void *userdata, ilk_free_fn free_fn);

/** The built-in status validator: a response interceptor that aborts when the response status is
 *  outside [min_status, max_status] (200 and 299 are the usual bounds). ILK_EINVAL if min > max. */
int ilk_interceptor_new_validate_status(ilk_interceptor **out, int min_status, int max_status);

/** Releases the caller's reference. NULL is a no-op. */
void ilk_interceptor_free(ilk_interceptor *interceptor);

/** @} */

/* ---------------------------------------------------------------------------------------------
 * Filter chains (inside an ilk_filter_fn only)
 * ------------------------------------------------------------------------------------------- */

/** @defgroup filter_chains Filter chains
 * Inside an ilk_filter_fn only. */
/** @{ */

/**
 * Runs the rest of the chain (later filters, the guard, the destination and the response
 * interceptors) with `request` (the one the filter got, possibly changed). Returns how it ended:
 * ILK_OK, ILK_NOT_FOUND, ILK_METHOD_NOT_ALLOWED, ILK_STOPPED, ILK_GUARDED, ILK_ABORTED,
 * ILK_REDIRECTED or ILK_RETRYING; or ILK_ECALLBACK if a later callback failed or next was already
 * called (the rest never runs twice). The filter passes it on by returning it (or ILK_CONTINUE):
 * `return ilk_filter_chain_next(chain, request);` is a filter that lets everything through.
 */
int ilk_filter_chain_next(ilk_filter_chain *chain, ilk_request *request);

/** After ilk_filter_chain_next: the response the rest of the chain produced, which the filter may
 *  change before it passes the outcome on (returns it, or ILK_CONTINUE). Before it: an empty
 *  response that a filter returning ILK_STOP answers with (the result's response). One pointer for
 *  the whole call: taken before next, it holds the rest's response after it (what was written to
 *  it before is dropped). Owned by the chain, valid during the filter's call; NULL for a NULL chain
 *  or one not in use. */
ilk_response *ilk_filter_chain_response(ilk_filter_chain *chain);

/** Sets the redirect target (copied) for a filter that returns ILK_REDIRECT. ILK_OK or ILK_EINVAL. */
int ilk_filter_chain_redirect(ilk_filter_chain *chain, const char *uri);

/** Sets a named route as the redirect target, its URI built as by ilk_router_url_for (errors are
 *  reported when the filter returns). ILK_OK or ILK_EINVAL. */
int ilk_filter_chain_redirect_to_route(ilk_filter_chain *chain, const char *name, const char *const *names,
                                       const char *const *values, size_t count);

/** @} */

/* ---------------------------------------------------------------------------------------------
 * Resolving (the pipeline: interceptors, filters, guard, destination)
 * ------------------------------------------------------------------------------------------- */

/** @defgroup resolving Resolving
 * The pipeline: interceptors, filters, guard, destination. */
/** @{ */

/**
 * Resolves `uri` (`uri_len` bytes) under `method` (NULL or "" for any), stage by stage:
 *   1. creation: parse, normalize, match, build the request (no route: it carries none);
 *   2. request interceptors: the route's scope, then the global ones (ILK_ABORT ends it: ILK_ABORTED);
 *   3. filters in order: pass on what ilk_filter_chain_next gave, stop (ILK_STOPPED) or
 *      redirect (back to 1 for the new URI, same state; past the redirect limit:
 *      ILK_REDIRECT_LOOP); a filter that called ilk_filter_chain_next and then stops or
 *      redirects ends the resolve as ILK_ECALLBACK naming it (the destination already ran);
 *   4. the route's guard: refused ends as ILK_GUARDED and keeps the URI as the pending link;
 *   5. the destination: the route's, or the default one when no route matched;
 *   6. response interceptors: the global ones, then the route's (ILK_ABORT: ILK_ABORTED; ILK_RETRY:
 *      stages 2 to 6 again from the original request, same state; past the limit: ILK_RETRY_LIMIT).
 *
 * *out receives a result (free it with ilk_result_free) and the return value equals
 * ilk_result_status(*out): ILK_OK (a destination ran, or a route without destination matched),
 * ILK_NOT_FOUND, ILK_METHOD_NOT_ALLOWED, ILK_STOPPED, ILK_GUARDED, ILK_ABORTED, ILK_REDIRECT_LOOP,
 * ILK_RETRY_LIMIT or ILK_ECALLBACK (a callback failed; a malformed redirect target too). On
 * ILK_EURI, ILK_EINVAL and ILK_ELIMIT, *out is set to NULL (if out is not NULL) and ilk_errmsg
 * says why. Concurrent resolves never share request, response or state.
 */
int ilk_router_resolve(ilk_router *router, const char *method, const char *uri, size_t uri_len,
                       ilk_result **out);

/** @} */

/** @defgroup requests Request accessors
 * The request handed to a destination is valid during the call; the one from
 * ilk_result_request until ilk_result_free. Strings are NUL-terminated and valid as long as the
 * request; absent parts are NULL. Every accessor returns NULL or 0 for a NULL request. */
/** @{ */

/** The URI exactly as received. */
const char *ilk_request_uri(const ilk_request *request);
/** The method, or NULL if the resolve was for any method. */
const char *ilk_request_method(const ilk_request *request);
/** The scheme, lower-cased, or NULL for a path without one. */
const char *ilk_request_scheme(const ilk_request *request);
/** The host, normalized as docs/grammar.md ("URIs") says (lower-cased, escapes decoded, a
 * trailing dot dropped, a name ending in a number as a dotted-decimal IPv4 address, an IPv6
 * literal as RFC 5952 writes it), or NULL (only http, https, ws and wss URIs have a host). */
const char *ilk_request_host(const ilk_request *request);
/** The port, or NULL. */
const char *ilk_request_port(const ilk_request *request);
/** The normalized path ("/" for the root); escapes other than of unreserved characters stay. */
const char *ilk_request_path(const ilk_request *request);
/** The fragment, percent-decoded, or NULL. */
const char *ilk_request_fragment(const ilk_request *request);
/** The matched route's id, or 0 if none matched. */
uint32_t ilk_request_route_id(const ilk_request *request);
/** The matched route's data as it stood when the resolve matched it (the resolve keeps it until
 *  it ends, whatever changes meanwhile), or NULL. */
void *ilk_request_route_data(const ilk_request *request);
/** The matched route's pattern, or NULL. */
const char *ilk_request_pattern(const ilk_request *request);
/** The number of parameters bound by the matched route. */
size_t ilk_request_param_count(const ilk_request *request);
/**
 * Gives parameter `i` (0-based, in path order) of the matched route: its name and its decoded
 * value, both NUL-terminated, with their lengths in bytes, valid during the callback (as
 * ilk_match_param_at gives a lookup's). Any of the out-pointers may be NULL. ILK_OK, or ILK_EINVAL
 * (request NULL or i out of range).
 */
int ilk_request_param_at(const ilk_request *request, size_t i, const char **name, size_t *name_len,
                         const char **value, size_t *value_len);
/** The decoded value of parameter `name`, or NULL if unbound. */
const char *ilk_request_param(const ilk_request *request, const char *name);
/** The number of query pairs ("a=1&a=2&b" has three). */
size_t ilk_request_query_count(const ilk_request *request);
/** Query pair `i`: key and value, decoded ("+" is a space; a key without "=" has ""). */
int ilk_request_query_at(const ilk_request *request, size_t i, const char **key, const char **value);
/** The first value of query key `key`, or NULL if absent. */
const char *ilk_request_query(const ilk_request *request, const char *key);

/** The value of metadata `key` (strings interceptors and filters attach), or NULL. */
const char *ilk_request_metadata(const ilk_request *request, const char *key);
/** The number of metadata entries. */
size_t ilk_request_metadata_count(const ilk_request *request);
/** Metadata entry `i` (in key order). ILK_OK or ILK_EINVAL. */
int ilk_request_metadata_at(const ilk_request *request, size_t i, const char **key, const char **value);
/** Sets metadata `key` to `value` (copied; NULL removes it). ILK_OK or ILK_EINVAL. */
int ilk_request_set_metadata(ilk_request *request, const char *key, const char *value);
/** Sets parameter `name` to `value` (copied; added at the end if unbound). ILK_OK or ILK_EINVAL. */
int ilk_request_set_param(ilk_request *request, const char *name, const char *value);
/** Removes parameter `name`, so later callbacks and the destination no longer see it. ILK_OK
 *  (also when it was not bound) or ILK_EINVAL. */
int ilk_request_remove_param(ilk_request *request, const char *name);
/**
 * The value of state `key`, or NULL. The state is one map per resolve, shared by every
 * interceptor, filter, guard and destination of that resolve across its redirects and retries.
 * Prefix keys with a reverse-DNS owner name ("com.example.retry-count") so components never clash.
 */
const char *ilk_request_state(const ilk_request *request, const char *key);
/** Sets state `key` to `value` (copied; NULL removes it). Works on the const request a guard or
 *  destination gets, too: the state is the resolve's, not the request's. ILK_OK or ILK_EINVAL. */
int ilk_request_set_state(const ilk_request *request, const char *key, const char *value);
/** Sets the reason an interceptor returning ILK_ABORT gives, or the message of an error. */
int ilk_request_set_error(ilk_request *request, const char *message);

/** @} */

/** @defgroup responses Responses
 * Response setters and getters, for destinations and interceptors. Setters copy what they are
 * given and return ILK_OK or ILK_EINVAL. */
/** @{ */

/** The response's status (0 for NULL). */
int ilk_response_status(const ilk_response *response);
/** The response's body and its length; valid until the response changes. */
const void *ilk_response_body(const ilk_response *response, size_t *len);
/** The number of headers on the response. */
size_t ilk_response_header_count(const ilk_response *response);
/** Header `i` of the response; valid until the response changes. ILK_OK or ILK_EINVAL. */
int ilk_response_header_at(const ilk_response *response, size_t i, const char **name, const char **value);
/** Removes every header. ILK_OK or ILK_EINVAL. */
int ilk_response_clear_headers(ilk_response *response);

/** Sets the status (200 unless set). ILK_OK, or ILK_EINVAL for a status outside 100...599. */
int ilk_response_set_status(ilk_response *response, int status);
/** Sets the body to `len` bytes at `body` (`body` may be NULL when `len` is 0). */
int ilk_response_set_body(ilk_response *response, const void *body, size_t len);
/** Adds a header; headers keep the order added. */
int ilk_response_add_header(ilk_response *response, const char *name, const char *value);
/** Sets the message reported if the destination then returns an error. */
int ilk_response_set_error(ilk_response *response, const char *message);

/** @} */

/** @defgroup results Results
 * Result accessors. Strings and bytes are valid until ilk_result_free. */
/** @{ */

/** How the resolve ended: one of the statuses listed at ilk_router_resolve. */
int ilk_result_status(const ilk_result *result);
/** The request the destination saw (route, parameters, query...). NULL for a NULL result. */
const ilk_request *ilk_result_request(const ilk_result *result);
/** The matched route's id, or 0. */
uint32_t ilk_result_route_id(const ilk_result *result);
/**
 * The response status (0 for a NULL result): the destination's (200 unless it set another);
 * 404 when no route matched and no default destination ran; 405 when the path matched under
 * other methods only (the response carries an `Allow` header listing them); the last attempt's
 * after ILK_RETRY_LIMIT; after a stop, what the filter wrote to ilk_filter_chain_response before
 * it stopped (200 and empty if nothing); 200 with an empty body after a guard's refusal, an
 * abort, a redirect loop or a callback error.
 */
int ilk_result_response_status(const ilk_result *result);
/** The response body and, if `len` is not NULL, its length. Never NULL for a valid result. */
const void *ilk_result_body(const ilk_result *result, size_t *len);
/** The number of response headers. */
size_t ilk_result_header_count(const ilk_result *result);
/** Response header `i`. ILK_OK or ILK_EINVAL. */
int ilk_result_header_at(const ilk_result *result, size_t i, const char **name, const char **value);
/** The callback's error message (ILK_ECALLBACK) or the abort reason (ILK_ABORTED), else NULL. */
const char *ilk_result_error(const ilk_result *result);
/** The number of redirects the resolve followed. */
size_t ilk_result_redirect_count(const ilk_result *result);
/** The URI of redirect `i`, in order, or NULL. */
const char *ilk_result_redirect_at(const ilk_result *result, size_t i);
/** The number of trace entries: one per stage that ran (match, each interceptor, filter, the
 *  guard, the destination, retries, redirects), in order. */
size_t ilk_result_trace_count(const ilk_result *result);
/**
 * Trace entry `i`: its stage ("match", "request-interceptor", "filter", "guard", "destination",
 * "response-interceptor", "retry", "redirect"), the name of what ran (or the URI for match), and
 * what it decided ("continue", "stop", "redirect <uri>", "allow", "refuse", "abort: <reason>",
 * "retry", "ran", "error: <message>"; for match the route's name or pattern, or "no route").
 * ILK_OK or ILK_EINVAL.
 */
int ilk_result_trace_at(const ilk_result *result, size_t i, const char **stage, const char **name,
                        const char **decision);
/** The value of state `key` when the resolve ended, or NULL. */
const char *ilk_result_state(const ilk_result *result, const char *key);
/** After ILK_METHOD_NOT_ALLOWED: the number of allowed methods. */
size_t ilk_result_allowed_count(const ilk_result *result);
/** Allowed method `i`, or NULL if out of range. */
const char *ilk_result_allowed_at(const ilk_result *result, size_t i);
/** Frees a result. NULL is a no-op. */
void ilk_result_free(ilk_result *result);
/** @} */

/* ---------------------------------------------------------------------------------------------
 * For hosts that pay per call
 * ------------------------------------------------------------------------------------------- */

/** @defgroup per_call For hosts that pay per call
 * What a C program does with the functions above, in fewer calls, for hosts where every call and
 * every argument costs (Python's ctypes, LuaJIT's FFI, N-API): a lookup's whole answer in its
 * return value, many lookups in one call, and a request's, a response's or a result's whole
 * contents in one copy. A C program has no need of them; their answers are the same as the
 * calls they stand for. */
/** @{ */

/**
 * ilk_router_match with the whole answer in the return value, for hosts where every call and
 * every argument costs (Python's ctypes). Returns a negative error code or ILK_NOT_FOUND or
 * ILK_METHOD_NOT_ALLOWED as ilk_router_match does; when a route matched, a value of at least
 * 2^32: the route's id is the value >> 32, and the low 32 bits are the length of the parameters
 * packed as "name\0value\0name\0value\0..." (values decoded). They are written into the buffer
 * set with ilk_match_set_buffer only if they fit (the buffer is the library's to write while it is
 * set: up to eight bytes past them may change); if the length is over its capacity (or no buffer
 * is set) nothing is written: read them with ilk_match_param_at, or set a larger buffer. `m` holds
 * the match as after ilk_router_match.
 */
int64_t ilk_router_match_packed(ilk_router *router, const char *method, const char *uri, size_t uri_len,
                                ilk_match *m);

/**
 * Sets the buffer ilk_router_match_packed writes parameters into: `capacity` bytes at `buffer`,
 * owned by the caller, who keeps it alive while `m` may write to it (NULL and 0 unset it).
 * ILK_OK, or ILK_EINVAL for a NULL `m`, a NULL buffer with a capacity, or a capacity over 4 GiB.
 */
int ilk_match_set_buffer(ilk_match *m, char *buffer, size_t capacity);

/** The answers of ilk_router_match_many, reused across batches. */
typedef struct ilk_match_batch ilk_match_batch;

/** Creates an empty batch in *out. ILK_OK, ILK_EINVAL or ILK_ENOMEM. Free with ilk_match_batch_free. */
int ilk_match_batch_new(ilk_match_batch **out);

/** Frees a batch. NULL is a no-op. */
void ilk_match_batch_free(ilk_match_batch *batch);

/**
 * Looks up many URIs under `method` (NULL for any), as ilk_router_match does one by one, and
 * leaves every answer in `batch` (replacing the last batch's). `uris` holds the URIs one after the
 * other, each followed by a NUL byte ("/a\0/b\0"), `uris_len` bytes in all: one buffer, so that
 * a host pays for one argument, not one per URI. A malformed URI does not stop the batch: its
 * status is ILK_EURI. Returns ILK_OK, or ILK_EINVAL for a NULL argument, `uris` not ending with a
 * NUL byte, or a malformed method, whatever the URIs (the batch is then empty). Use one batch per
 * thread at a time. ilk_router_match_requests takes a method per URI.
 */
int ilk_router_match_many(ilk_router *router, const char *method, const char *uris, size_t uris_len,
                          ilk_match_batch *batch);

/** The number of answers in the batch. */
size_t ilk_match_batch_count(const ilk_match_batch *batch);

/**
 * The answers as arrays of ilk_match_batch_count elements, valid until the next batch: status
 * (ILK_OK, ILK_NOT_FOUND, ILK_METHOD_NOT_ALLOWED or ILK_EURI), route id (0 for none), and the
 * offsets into the parameter text: answer i's parameters are the NUL-separated
 * "name\0value\0name\0value\0..." bytes from offsets[i] to offsets[i + 1] (offsets has count + 1
 * elements) of the text returned by ilk_match_batch_text. For ILK_EURI the text of answer i is the
 * error instead: the message ilk_router_match would leave in ilk_errmsg(), then " (at byte N)"
 * with the offset it would give, then a NUL byte ("bad percent-escape in path (at byte 3)\0").
 * Any out-pointer may be NULL.
 */
int ilk_match_batch_arrays(const ilk_match_batch *batch, const int32_t **statuses, const uint32_t **route_ids,
                           const size_t **offsets);

/** The parameter text of the batch and its length in bytes; valid until the next batch. */
const char *ilk_match_batch_text(const ilk_match_batch *batch, size_t *len);

/* A batch's layout, as ilk_match_batch_copy writes it and ilk_match_batch_view points at it: for
 * n answers, n statuses from byte 0, n route ids from ILK_BATCH_ROUTE_IDS_AT(n), n + 1 offsets
 * from ILK_BATCH_OFFSETS_AT(n), and the text from ILK_BATCH_TEXT_AT(n) on. A host that cannot
 * expand a function-like macro lays the parts end to end by their element sizes. */
/** Bytes of a status in a batch's layout: an int32_t. */
#define ILK_BATCH_STATUS_SIZE 4
/** Bytes of a route id in a batch's layout: a uint32_t. */
#define ILK_BATCH_ROUTE_ID_SIZE 4
/** Bytes of an offset in a batch's layout: a size_t (the layout is a 64-bit machine's). */
#define ILK_BATCH_OFFSET_SIZE 8
/** The byte where the route ids of a batch of `n` answers begin (after the statuses). */
#define ILK_BATCH_ROUTE_IDS_AT(n) (ILK_BATCH_STATUS_SIZE * (size_t)(n))
/** The byte where the offsets of a batch of `n` answers begin (after the route ids). */
#define ILK_BATCH_OFFSETS_AT(n) ((ILK_BATCH_STATUS_SIZE + ILK_BATCH_ROUTE_ID_SIZE) * (size_t)(n))
/** The byte where the text of a batch of `n` answers begins (after the n + 1 offsets): the size
 *  of its copy but for the text. */
#define ILK_BATCH_TEXT_AT(n) (ILK_BATCH_OFFSETS_AT(n) + ILK_BATCH_OFFSET_SIZE * ((size_t)(n) + 1))

/**
 * Copies the whole batch into `out`, a buffer of `out_len` bytes the caller owns (8-byte aligned
 * for the offsets to be read in place), so that a host for which each call and each object costs
 * (Python's ctypes) gets every answer in one call, and keeps them past the next batch. With
 * n = ilk_match_batch_count(batch), `out` then holds, one after the other:
 *   int32_t  statuses[n];       as ilk_match_batch_arrays gives them
 *   uint32_t route_ids[n];
 *   size_t   offsets[n + 1];    into the text below (offsets[0] is 0)
 *   char     text[offsets[n]];  as ilk_match_batch_text gives it
 * *needed (may be NULL) is set to that size, ILK_BATCH_TEXT_AT(n) + the text's length, in every
 * case but a NULL batch. Returns ILK_OK; ILK_ELIMIT, having written nothing, if out_len is smaller
 * (call again with a buffer of *needed bytes: the batch is unchanged); ILK_EINVAL for a NULL
 * batch, or a NULL out when out_len is large enough.
 */
int ilk_match_batch_copy(const ilk_match_batch *batch, void *out, size_t out_len, size_t *needed);

/** Where a batch's answers lie, as ilk_router_match_requests reports them. */
typedef struct ilk_match_batch_view {
  size_t count;       /**< The number of answers: one per URI. */
  size_t first_error; /**< The index of the first answer whose status is an error, or count. */
  const void *data;   /**< The batch as ilk_match_batch_copy would write it; valid until the batch's next use. */
  size_t size;        /**< The bytes at data: ILK_BATCH_TEXT_AT(count) + the text's length. */
} ilk_match_batch_view;

/**
 * Looks up many requests, each a method and a URI, as ilk_router_match does one by one, and
 * leaves every answer in `batch` as ilk_router_match_many does. `uris` is as for
 * ilk_router_match_many. `methods` holds methods the same way, `methods_len` bytes in all, each
 * followed by a NUL byte: either one, the method of every URI, or exactly one per URI, in the
 * URIs' order. An empty method ("") accepts any method, as it does for ilk_router_match; so do a
 * NULL `methods` and a `methods_len` of 0.
 *
 * For hosts that pay for each call and each out-parameter (Python's ctypes), on ILK_OK *view (if
 * `view` is not NULL) is set to where the answers lie, in the layout ilk_match_batch_copy
 * documents, so that one copy of `view->size` bytes takes them all; view->count lets the host
 * check that it counted the URIs alike, and view->first_error spares it a scan of the statuses.
 *
 * Returns ILK_OK; ILK_EINVAL for a NULL router or batch, `uris` or `methods` not ending with a NUL
 * byte, a count of methods that is neither one nor the count of URIs, or a malformed method (the
 * message names its index; the batch is then empty). Use one batch per thread at a time.
 */
int ilk_router_match_requests(ilk_router *router, const char *methods, size_t methods_len, const char *uris,
                              size_t uris_len, ilk_match_batch *batch, ilk_match_batch_view *view);

/**
 * The whole request in one call, for hosts where every call costs (Python's ctypes): *data and *len
 * receive NUL-separated UTF-8 text, valid as long as the request. The fields, in order: uri,
 * method, scheme, host, port, path, fragment, pattern, route id (decimal); each written with a
 * first byte '1' and its value, or '0' alone when absent. Then three lists, parameters, query pairs
 * and metadata: each a decimal count, then that many name and value strings. ILK_OK or ILK_EINVAL.
 */
int ilk_request_packed(const ilk_request *request, const char **data, size_t *len);

/**
 * The whole response in one copy, for hosts where every call costs (Python's ctypes): `out` then
 * holds, one after the other,
 *   uint64_t text_len;        in the machine's byte order
 *   char     text[text_len];  NUL-separated: the status (decimal), the
 *                             number of headers (decimal), then each header's name and value
 *   char     body[];          the body: the rest of the copy
 * *needed (may be NULL) is set to that size, 8 + text_len + the body's length, for any response
 * that is not NULL. `out` needs no alignment. Returns ILK_OK; ILK_ELIMIT, having written nothing,
 * if out_len is smaller (call again with a buffer of *needed bytes); ILK_EINVAL for a NULL
 * response, or a NULL out when out_len is large enough.
 */
int ilk_response_copy(const ilk_response *response, void *out, size_t out_len, size_t *needed);

/**
 * The whole result but the body in one call, for hosts where every call costs (Python's ctypes):
 * *data and *len receive NUL-separated UTF-8 text, valid until ilk_result_free, written as
 * ilk_request_packed writes (an optional field is '1' and its value, or '0' alone; a list is a
 * decimal count, then its items). In order: the response status (decimal); the error or abort
 * reason (optional); the headers (a list of name and value); the trace (a count, then stage, name
 * and decision of each entry); the redirects (a list); the allowed methods (a list); then the
 * request, exactly as ilk_request_packed gives it. ILK_OK or ILK_EINVAL.
 */
int ilk_result_packed(const ilk_result *result, const char **data, size_t *len);

/**
 * The whole result, body included, in one copy, for hosts where every call and every
 * out-parameter costs (Python's ctypes): `out` then holds, one after the other,
 *   uint64_t text_len;        in the machine's byte order
 *   char     text[text_len];  as ilk_result_packed gives it
 *   char     body[];          as ilk_result_body gives it: the rest of the copy
 * *needed (may be NULL) is set to that size, 8 + text_len + the body's length, for any result
 * that is not NULL. `out` needs no alignment. Returns ILK_OK; ILK_ELIMIT, having written nothing,
 * if out_len is smaller (call again with a buffer of *needed bytes: the result is unchanged);
 * ILK_EINVAL for a NULL result, or a NULL out when out_len is large enough.
 */
int ilk_result_copy(const ilk_result *result, void *out, size_t out_len, size_t *needed);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* INTERLOCK_H */
