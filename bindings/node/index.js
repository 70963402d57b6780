'use strict';
// Interlock for Node.js: the addon (src/, over the C ABI of include/interlock.h) and the
// JavaScript classes it makes instances of. What a pattern means, which route wins and what each
// pipeline stage may decide are the library's; this file only names things in Node's idiom.
// Every code and flag comes from the addon, which takes them from the header.

const fs = require('node:fs');
const path = require('node:path');

function loadAddon() {
  const file = process.env.INTERLOCK_NODE_ADDON || path.join(__dirname, 'build', 'Release', 'interlock.node');
  try {
    return require(file);
  } catch (error) {
    error.message = `interlock: cannot load the addon ${file} (build it with \`make node-build\` in the project): ${error.message}`;
    throw error;
  }
}

const native = loadAddon();
const constants = Object.freeze({ ...native.constants });

/** An error the library reported: `code` is the header's name of its status ("ILK_EPATTERN"),
 *  `offset` the byte offset in the pattern, URI or text where there is one. */
class InterlockError extends Error {
  constructor(message, code, offset) {
    super(offset === undefined ? message : `${message} (at byte ${offset})`);
    this.name = new.target.name;
    this.code = code;
    if (offset !== undefined) this.offset = offset;
  }
}
/** An argument out of its domain (ILK_EINVAL). */
class InvalidArgumentError extends InterlockError {}
/** A malformed route pattern or route file line (ILK_EPATTERN); `offset` says where. */
class PatternError extends InterlockError {}
/** A malformed URI (ILK_EURI); `offset` says where. */
class InvalidURIError extends InterlockError {}
/** A route or name that another route has (ILK_ECONFLICT); the message names it. */
class ConflictError extends InterlockError {}
/** A limit was reached (ILK_ELIMIT): route count, pattern size, match work. */
class LimitError extends InterlockError {}
/** No route has this id or name (ILK_ENOROUTE). */
class UnknownRouteError extends InterlockError {}
/** A callback failed in a way that has no JavaScript exception of its own (ILK_ECALLBACK). */
class CallbackError extends InterlockError {}
/** match(): routes take the URI, but only under other methods; `allowed` names them. */
class MethodNotAllowedError extends InterlockError {}

/** Throw from an interceptor to abort the resolve (its status is then "ABORTED"). */
class Abort extends Error {
  constructor(reason = 'aborted') {
    super(String(reason));
    this.name = 'Abort';
    this.reason = reason;
  }
}

/** A response: `status`, `body` (a Buffer; a destination may give a string) and `headers`
 *  ([name, value] pairs). A response interceptor asks for a retry with `retry()`. */
class Response {
  constructor(init = {}) {
    this.status = init.status === undefined ? 200 : init.status;
    this.body = init.body === undefined ? Buffer.alloc(0) : init.body;
    this.headers = init.headers === undefined ? [] : init.headers;
    this.retrying = false;
  }
  retry() {
    this.retrying = true;
  }
  get text() {
    return Buffer.isBuffer(this.body) ? this.body.toString('utf8') : String(this.body);
  }
}

/** What a filter returns to redirect: made by request.redirect() or request.redirectTo(). */
class Redirect {
  constructor(uri, name, params) {
    this.uri = uri;
    this.name = name;
    this.params = params;
  }
}

/** A request as callbacks and results see it (the addon sets its fields). */
class Request {
  /** A filter returns this to redirect to `uri`. */
  redirect(uri) {
    return new Redirect(uri, null, null);
  }
  /** A filter returns this to redirect to the route called `name`, built from `params`. */
  redirectTo(name, params = {}) {
    return new Redirect(null, name, params);
  }
}

native.setup({
  errors: {
    Error: InterlockError,
    ILK_EINVAL: InvalidArgumentError,
    ILK_EPATTERN: PatternError,
    ILK_EURI: InvalidURIError,
    ILK_ECONFLICT: ConflictError,
    ILK_ELIMIT: LimitError,
    ILK_ENOROUTE: UnknownRouteError,
    ILK_ECALLBACK: CallbackError,
    ILK_METHOD_NOT_ALLOWED: MethodNotAllowedError,
  },
  Response,
  Redirect,
  Abort,
  Request,
});

const { Router } = native;
const proto = Router.prototype;

// The addon's methods that index.js dresses, taken off the prototype.
const explainJSON = proto.explainJSON;
const addInterceptor = proto.addInterceptor;
const addFilter = proto.addFilter;
const routeInfo = proto.routeInfo;
const removeRoute = proto.removeRoute;
const replaceRoute = proto.replaceRoute;
const setRouteData = proto.setRouteData;
delete proto.explainJSON;
delete proto.addInterceptor;
delete proto.routeInfo;
// The lookup: a function of the router's number (the addon sets it on each router), not a method.
const { matchRaw, numberKey } = native;

// The lookup's scratch: the route's id, its parameter count, its generation, then each
// parameter's name index and value end, at the places the addon's layout gives (src/addon.h).
const scratch = native.scratch;
const { id: ID, count: COUNT, generation: GENERATION, params: PARAMS } = native.scratchLayout;
const NAME = PARAMS;
const END = PARAMS + 1;
// What a router keeps of each route for match (routeInfo: name, pattern, parameter names, data,
// generation), by id, on the router object itself, so that data holding the router is no root.
const kRoutes = Symbol('interlock.routes');

function routeFor(router, id) {
  let routes = router[kRoutes];
  if (routes === undefined) {
    routes = [];
    Object.defineProperty(router, kRoutes, { value: routes });
  }
  let route = routes[id];
  if (route === undefined || route.generation !== scratch[GENERATION]) {
    route = routeInfo.call(router, id);
    // A parameter called __proto__ would set the prototype of a plain object: define it instead.
    route.plain = !route.names.includes('__proto__');
    routes[id] = route;
  }
  return route;
}

function optionsArg(options, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    const error = new TypeError(`${what} must be an object, not ${Array.isArray(options) ? 'Array' : options === null ? 'null' : typeof options}`);
    error.code = 'ERR_INVALID_ARG_TYPE';
    throw error;
  }
  return options;
}

function labelOf(fn, options) {
  if (options.name !== undefined && options.name !== null) return options.name;
  return typeof fn === 'function' && fn.name ? fn.name : null;
}

// A change to a route drops what the router kept of it for match (the addon's generation would
// refresh it at its next match; dropping it lets go of the data at once).
function forget(router, id) {
  const routes = router[kRoutes];
  if (routes !== undefined) delete routes[id];
}

// A method's property: writable and configurable, not enumerable (as a class's methods).
function methodProperty(value) {
  return { value, writable: true, configurable: true };
}

// addRequestInterceptor and addResponseInterceptor: options { route, name }.
function intercept(router, isResponse, fn, options) {
  options = optionsArg(options, 'options');
  return addInterceptor.call(router, isResponse, fn, options.route, labelOf(fn, options));
}

Object.defineProperties(proto, {
  removeRoute: methodProperty(function (nameOrId) {
    forget(this, removeRoute.call(this, nameOrId));
  }),
  replaceRoute: methodProperty(function (nameOrId, pattern) {
    forget(this, replaceRoute.call(this, nameOrId, pattern));
  }),
  setRouteData: methodProperty(function (nameOrId, data) {
    forget(this, setRouteData.call(this, nameOrId, data));
  }),
  /** match(uri, method?) -> { id, name, pattern, params, data } or null; throws
   *  MethodNotAllowedError (with `allowed`) when routes take the path under other methods only. */
  match: methodProperty(function match(uri, method) {
    const values = matchRaw(this[numberKey], uri, method);
    if (values === null) return null;
    const id = scratch[ID];
    const count = scratch[COUNT];
    const route = routeFor(this, id);
    const names = route.names;
    const params = {};
    let start = 0;
    for (let i = 0; i < count; i++) {
      const end = scratch[END + 2 * i];
      const name = names[scratch[NAME + 2 * i]];
      if (route.plain) params[name] = values.slice(start, end);
      else Object.defineProperty(params, name, { value: values.slice(start, end), enumerable: true, writable: true, configurable: true });
      start = end;
    }
    return { id, name: route.name, pattern: route.pattern, params, data: route.data };
  }),
  /** explain(uri, method?): why the URI ends where it does (the library's ilk_router_explain). */
  explain: methodProperty(function explain(uri, method) {
    return JSON.parse(explainJSON.call(this, uri, method));
  }),
  /** addFilter(fn, { name }?): fn(request, next) continues (returns next(request)), stops (returns
   *  without calling next, answering with what it returned, read as a destination's) or redirects
   *  (returns request.redirect(uri) or redirectTo(name, params)). */
  addFilter: methodProperty(function (fn, options) {
    options = optionsArg(options, 'options');
    return addFilter.call(this, fn, labelOf(fn, options));
  }),
  /** addRequestInterceptor(fn, { route, name }?): fn(request) may change request.params and
   *  request.metadata; throw new Abort(reason) to abort. */
  addRequestInterceptor: methodProperty(function addRequestInterceptor(fn, options) {
    return intercept(this, false, fn, options);
  }),
  /** addResponseInterceptor(fn, { route, name }?): fn(response, request) may change the response,
   *  call response.retry(), or throw new Abort(reason). */
  addResponseInterceptor: methodProperty(function addResponseInterceptor(fn, options) {
    return intercept(this, true, fn, options);
  }),
  /** loadFile(path): load() of a file's bytes; an error's message begins "PATH:LINE:COLUMN:". */
  loadFile: methodProperty(function loadFile(file) {
    const bytes = fs.readFileSync(file);
    try {
      return this.load(bytes);
    } catch (error) {
      if (error instanceof InterlockError && error.line !== undefined) {
        error.message = `${file}:${error.line}:${error.column}: ${error.message.replace(/^line \d+, column \d+: /, '')}`;
        error.path = String(file);
      }
      throw error;
    }
  }),
});

module.exports = {
  Router,
  Response,
  Request,
  Redirect,
  Abort,
  InterlockError,
  InvalidArgumentError,
  PatternError,
  InvalidURIError,
  ConflictError,
  LimitError,
  UnknownRouteError,
  CallbackError,
  MethodNotAllowedError,
  constants,
  version: native.version(),
};
