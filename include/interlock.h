/*
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
 *   - After an error, ilk_errmsg() and ilk_erroffset() describe it, per thread.
 *   - Strings go in as NUL-terminated UTF-8 unless a length is passed. Strings that come out are
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

#define ILK_VERSION_MAJOR 0
#define ILK_VERSION_MINOR 1
#define ILK_VERSION_PATCH 0
/** The version as a string, "MAJOR.MINOR.PATCH". */
#define ILK_VERSION "0.1.0"
/** The version as a number: MAJOR * 1000000 + MINOR * 1000 + PATCH. */
#define ILK_VERSION_NUMBER (ILK_VERSION_MAJOR * 1000000 + ILK_VERSION_MINOR * 1000 + ILK_VERSION_PATCH)

/** The library's version string (static storage). Compare with ILK_VERSION to catch a header and
 *  library that do not belong together. */
const char *ilk_version(void);

/** The library's version number, as ILK_VERSION_NUMBER. */
int ilk_version_number(void);

/* ---------------------------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------------------------- */

#define ILK_OK                  0  /**< Success. */
#define ILK_NOT_FOUND           1  /**< No route matches (a miss, not an error). */
#define ILK_METHOD_NOT_ALLOWED  2  /**< Routes match the path, but only under other methods. */

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

/** The byte offset (in the pattern or URI) of the last error on this thread, or ILK_NO_OFFSET. */
size_t ilk_erroffset(void);

/** A short English name for a status code, such as "pattern error" (static storage). */
const char *ilk_errstr(int code);

/* ---------------------------------------------------------------------------------------------
 * Types
 * ------------------------------------------------------------------------------------------- */

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

/* ---------------------------------------------------------------------------------------------
 * Routers
 * ------------------------------------------------------------------------------------------- */

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
 * Frees a router and calls the free function of every destination's userdata (and the default
 * destination's) exactly once. No other call on the router may be running or follow. NULL is a
 * no-op. An ilk_match used with this router stays valid and may be used with another router.
 */
void ilk_router_free(ilk_router *router);

/**
 * Adds a route.
 *
 * `pattern` follows the grammar in README.md: "[METHOD ][scheme://[host]]path", path segments
 * being literals, ":name", ":name(REGEX)", "*name" or "*" (last only), and "(/...)" optional parts.
 * `destination` (may be NULL for a route used only with ilk_router_match) runs when
 * ilk_router_resolve picks the route; `userdata` is passed to it and released with `free_fn`
 * (may be NULL) when the router is freed. If `route_id` is not NULL it receives the route's id:
 * 1 for the first route added, then 2, 3, ...
 *
 * Returns ILK_OK; ILK_EINVAL if router or pattern is NULL; ILK_EPATTERN for a malformed pattern
 * (ilk_errmsg names the problem, ilk_erroffset gives the byte offset in `pattern`); ILK_ECONFLICT
 * if a route with the same method, scheme, host and path shape exists (the message names it);
 * ILK_ELIMIT past the limits (64 optional variants, 256 segments, 4,194,304 routes). On failure
 * the userdata stays the caller's.
 */
int ilk_router_add_route(ilk_router *router, const char *pattern, ilk_destination_fn destination,
                         void *userdata, ilk_free_fn free_fn, uint32_t *route_id);

/**
 * Sets the destination that ilk_router_resolve runs when no route matches (ILK_NOT_FOUND; a
 * method-not-allowed answer does not go to it). NULL clears it, and then `free_fn`, if given, is
 * called on `userdata` at once. The userdata of a destination it replaces is freed at once; the new
 * one when the router is freed or when it is replaced in turn. Returns ILK_OK or ILK_EINVAL.
 */
int ilk_router_set_default(ilk_router *router, ilk_destination_fn destination, void *userdata,
                           ilk_free_fn free_fn);

/** The number of routes in the router (0 for NULL). */
size_t ilk_router_route_count(const ilk_router *router);

/**
 * Puts the pattern of route `route_id` in *pattern (NUL-terminated, valid until the router is
 * freed). Returns ILK_OK, ILK_EINVAL or ILK_ENOROUTE.
 */
int ilk_router_route_pattern(const ilk_router *router, uint32_t route_id, const char **pattern);

/* ---------------------------------------------------------------------------------------------
 * Matching (the fast path: no callbacks, no heap allocation per lookup)
 * ------------------------------------------------------------------------------------------- */

/**
 * Creates lookup state in *out, with buffers for the longest URI (64 KiB), so that lookups never
 * allocate (except the first lookup after the router changed, which takes the new table).
 * Use one ilk_match per thread. Returns ILK_OK, ILK_EINVAL or ILK_ENOMEM. Free with ilk_match_free.
 */
int ilk_match_new(ilk_match **out);

/** Frees lookup state. NULL is a no-op. */
void ilk_match_free(ilk_match *m);

/**
 * Looks up `uri` (`uri_len` bytes, not necessarily NUL-terminated) under `method` (NUL-terminated,
 * or NULL for any method) and leaves the answer in `m`.
 *
 * Returns ILK_OK if a route matched (read it with ilk_match_route_id and ilk_match_param*),
 * ILK_NOT_FOUND if none did, ILK_METHOD_NOT_ALLOWED if routes match only under other methods
 * (ilk_match_allowed_*), ILK_EURI for a malformed URI (bad escape, control byte, invalid UTF-8,
 * over 64 KiB; ilk_erroffset gives the byte offset in `uri`), ILK_EINVAL for a NULL argument or a
 * malformed method, ILK_ELIMIT if a constraint's regex ran past PCRE2's match limit.
 */
int ilk_router_match(ilk_router *router, const char *method, const char *uri, size_t uri_len,
                     ilk_match *m);

/** The id of the route the last lookup matched, or 0 if it matched none (or m is NULL). */
uint32_t ilk_match_route_id(const ilk_match *m);

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

/* ---------------------------------------------------------------------------------------------
 * Resolving (match, build the request, run the destination)
 * ------------------------------------------------------------------------------------------- */

/**
 * Resolves `uri` (`uri_len` bytes) under `method` (NULL for any): matches it, builds the request
 * and runs the matched route's destination, or the default destination when no route matched.
 *
 * On ILK_OK, ILK_NOT_FOUND, ILK_METHOD_NOT_ALLOWED and ILK_ECALLBACK, *out receives a result (free
 * it with ilk_result_free) and the return value equals ilk_result_status(*out). ILK_OK means a
 * destination ran, or a route without destination matched. On ILK_EURI, ILK_EINVAL and ILK_ELIMIT,
 * *out is set to NULL (if out is not NULL) and ilk_errmsg says why.
 */
int ilk_router_resolve(ilk_router *router, const char *method, const char *uri, size_t uri_len,
                       ilk_result **out);

/* Request accessors. The request handed to a destination is valid during the call; the one from
 * ilk_result_request until ilk_result_free. Strings are NUL-terminated and valid as long as the
 * request; absent parts are NULL. Every accessor returns NULL or 0 for a NULL request. */

/** The URI exactly as received. */
const char *ilk_request_uri(const ilk_request *request);
/** The method, or NULL if the resolve was for any method. */
const char *ilk_request_method(const ilk_request *request);
/** The scheme, lower-cased, or NULL for a path without one. */
const char *ilk_request_scheme(const ilk_request *request);
/** The host, lower-cased, or NULL (only http, https, ws and wss URIs have a host). */
const char *ilk_request_host(const ilk_request *request);
/** The port, or NULL. */
const char *ilk_request_port(const ilk_request *request);
/** The normalized path ("/" for the root); escapes other than of unreserved characters stay. */
const char *ilk_request_path(const ilk_request *request);
/** The fragment, percent-decoded, or NULL. */
const char *ilk_request_fragment(const ilk_request *request);
/** The matched route's id, or 0 if none matched. */
uint32_t ilk_request_route_id(const ilk_request *request);
/** The matched route's pattern, or NULL. */
const char *ilk_request_pattern(const ilk_request *request);
/** The number of parameters bound by the matched route. */
size_t ilk_request_param_count(const ilk_request *request);
/** Parameter `i`'s name and decoded value (either out-pointer may be NULL). ILK_OK or ILK_EINVAL. */
int ilk_request_param_at(const ilk_request *request, size_t i, const char **name, const char **value);
/** The decoded value of parameter `name`, or NULL if unbound. */
const char *ilk_request_param(const ilk_request *request, const char *name);
/** The number of query pairs ("a=1&a=2&b" has three). */
size_t ilk_request_query_count(const ilk_request *request);
/** Query pair `i`: key and value, decoded ("+" is a space; a key without "=" has ""). */
int ilk_request_query_at(const ilk_request *request, size_t i, const char **key, const char **value);
/** The first value of query key `key`, or NULL if absent. */
const char *ilk_request_query(const ilk_request *request, const char *key);

/* Response setters, for destinations. Each copies what it is given. ILK_OK or ILK_EINVAL. */

/** Sets the status (200 unless set). */
int ilk_response_set_status(ilk_response *response, int status);
/** Sets the body to `len` bytes at `body` (`body` may be NULL when `len` is 0). */
int ilk_response_set_body(ilk_response *response, const void *body, size_t len);
/** Adds a header; headers keep the order added. */
int ilk_response_add_header(ilk_response *response, const char *name, const char *value);
/** Sets the message reported if the destination then returns an error. */
int ilk_response_set_error(ilk_response *response, const char *message);

/* Result accessors. Strings and bytes are valid until ilk_result_free. */

/** How the resolve ended: ILK_OK, ILK_NOT_FOUND, ILK_METHOD_NOT_ALLOWED or ILK_ECALLBACK. */
int ilk_result_status(const ilk_result *result);
/** The request the destination saw (route, parameters, query...). NULL for a NULL result. */
const ilk_request *ilk_result_request(const ilk_result *result);
/** The matched route's id, or 0. */
uint32_t ilk_result_route_id(const ilk_result *result);
/** The response status (200 unless the destination set another; 0 for a NULL result). */
int ilk_result_response_status(const ilk_result *result);
/** The response body and, if `len` is not NULL, its length. Never NULL for a valid result. */
const void *ilk_result_body(const ilk_result *result, size_t *len);
/** The number of response headers. */
size_t ilk_result_header_count(const ilk_result *result);
/** Response header `i`. ILK_OK or ILK_EINVAL. */
int ilk_result_header_at(const ilk_result *result, size_t i, const char **name, const char **value);
/** The callback's error message when the status is ILK_ECALLBACK, else NULL. */
const char *ilk_result_error(const ilk_result *result);
/** After ILK_METHOD_NOT_ALLOWED: the number of allowed methods. */
size_t ilk_result_allowed_count(const ilk_result *result);
/** Allowed method `i`, or NULL if out of range. */
const char *ilk_result_allowed_at(const ilk_result *result, size_t i);
/** Frees a result. NULL is a no-op. */
void ilk_result_free(ilk_result *result);

#ifdef __cplusplus
}
#endif

#endif /* INTERLOCK_H */
