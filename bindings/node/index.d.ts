// Type declarations of the interlock Node.js addon (index.js, src/). README.md is the reference.

/// <reference types="node" />

/** A route given by its id or its name. */
export type RouteRef = number | string;

/** A header: [name, value]. */
export type Header = [string, string];

/** The status of a resolve: the header's name without "ILK_". */
export type ResolveStatus =
  | 'OK' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'STOPPED' | 'GUARDED' | 'ABORTED'
  | 'REDIRECT_LOOP' | 'RETRY_LIMIT';

export interface RouterOptions {
  /** Literal segments compare ASCII case-insensitively (ILK_CASE_INSENSITIVE). */
  caseInsensitive?: boolean;
  /** A trailing slash is significant (ILK_STRICT_SLASH). */
  strictSlash?: boolean;
  /** Redirects one resolve may take (8 unless set). */
  redirectLimit?: number;
  /** Retries one resolve may take (3 unless set). */
  retryLimit?: number;
  /** Backtracking steps each regex of a lookup may take (10,000 unless set). */
  matchLimit?: number;
}

/** What a destination returns, and a filter that stops without calling next: nothing (200, empty),
 *  a status, a body, or a response. */
export type Answer = void | undefined | null | number | string | Uint8Array | Response | ResponseInit;
export type Destination = (request: Request) => Answer;
export type Guard = (request: Request) => unknown;
/** Continues by returning next(request) (or a response to replace it), stops by returning an
 *  Answer without calling next (the result is STOPPED with that response), or redirects. */
export type Filter = (request: Request, next: (request?: Request) => Response) => Answer | Redirect;
export type RequestInterceptor = (request: Request) => void;
export type ResponseInterceptor = (response: Response, request: Request) => void;

export interface RouteOptions<Data = unknown> {
  name?: string;
  destination?: Destination;
  guard?: Guard;
  data?: Data;
}

export interface InterceptorOptions {
  /** The route whose scope it joins; the global scope without it. */
  route?: RouteRef;
  /** Its name in the trace (the function's name unless given). */
  name?: string;
}

/** What match() gives when a route matched. */
export interface Match<Data = unknown> {
  id: number;
  name: string | null;
  pattern: string;
  params: Record<string, string>;
  data: Data | null;
}

export interface RouteInfo {
  id: number;
  name: string | null;
  pattern: string;
}

export interface TraceEntry {
  stage: string;
  name: string;
  decision: string;
}

export interface Explanation {
  answer: { route: number; params: Record<string, string> } | { status: string; allowed?: string[] };
  reason: string | null;
  candidates: Array<{ route: number; name: string | null; pattern: string; takes: boolean; why_not: string | null }>;
  truncated: boolean;
}

export interface ResponseInit {
  status?: number;
  body?: string | Uint8Array | null;
  headers?: Header[] | Record<string, string>;
}

export class Response {
  constructor(init?: ResponseInit);
  status: number;
  body: Buffer | string | Uint8Array;
  headers: Header[];
  /** Set by retry(). */
  retrying: boolean;
  /** The request it answers (in response interceptors and results). */
  request?: Request;
  /** A response interceptor asks for the stages to run again. */
  retry(): void;
  /** The body decoded as UTF-8. */
  readonly text: string;
}

export class Redirect {
  uri: string | null;
  name: string | null;
  params: Record<string, string | number> | null;
}

export class Request {
  uri: string;
  method: string | null;
  scheme: string | null;
  host: string | null;
  port: string | null;
  path: string;
  fragment: string | null;
  pattern: string | null;
  routeId: number;
  name: string | null;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  metadata: Record<string, string>;
  data: unknown;
  state: Record<string, unknown>;
  /** A filter returns this to redirect to `uri`. */
  redirect(uri: string): Redirect;
  /** A filter returns this to redirect to the route called `name`. */
  redirectTo(name: string, params?: Record<string, string | number>): Redirect;
}

export interface Result {
  status: ResolveStatus;
  routeId: number;
  name: string | null;
  pattern: string | null;
  params: Record<string, string>;
  response: Response;
  request: Request;
  error: string | null;
  trace: TraceEntry[];
  redirects: string[];
  allowed: string[];
  state: Record<string, unknown>;
}

export class Router {
  constructor(options?: RouterOptions);
  /** The number of routes. */
  readonly size: number;

  addRoute<Data = unknown>(pattern: string, options?: Destination | RouteOptions<Data>): number;
  removeRoute(route: RouteRef): void;
  replaceRoute(route: RouteRef, pattern: string): void;
  setRouteData(route: RouteRef, data: unknown): void;
  setDestination(route: RouteRef, destination: Destination): void;
  setGuard(route: RouteRef, guard: Guard | null): void;
  setDefault(destination: Destination | null): void;
  routeId(name: string): number;
  route(route: RouteRef): RouteInfo;
  routes(): RouteInfo[];
  routeValue(route: RouteRef, key: string): string | null;
  compile(): void;
  setLimits(redirects: number, retries: number): void;
  setMatchLimit(limit: number): void;

  /** The route that takes `uri` under `method`, or null; throws MethodNotAllowedError when
   *  routes take the path under other methods only. */
  match<Data = unknown>(uri: string, method?: string | null): Match<Data> | null;
  explain(uri: string, method?: string | null): Explanation;
  urlFor(name: string, params?: Record<string, string | number>): string;
  load(text: string | Uint8Array): number[];
  loadFile(path: string): number[];

  resolve(uri: string, method?: string | null): Result;
  addFilter(filter: Filter, options?: { name?: string }): void;
  addRequestInterceptor(interceptor: RequestInterceptor, options?: InterceptorOptions): void;
  addResponseInterceptor(interceptor: ResponseInterceptor, options?: InterceptorOptions): void;
  pendingLink(): string | null;
  takePendingLink(): string | null;
  replayPendingLink(): Result | null;
  /** Frees the library's router now (else done when the object is collected). */
  close(): void;
}

/** Throw from an interceptor to abort the resolve. */
export class Abort extends Error {
  constructor(reason?: unknown);
  reason: unknown;
}

export class InterlockError extends Error {
  /** The header's name of the status, such as "ILK_EPATTERN". */
  code: string;
  /** The byte offset in the pattern, URI or text, where there is one. */
  offset?: number;
  /** load(): the line and column (1-based, columns in bytes). */
  line?: number;
  column?: number;
  /** loadFile(): the file. */
  path?: string;
}
export class InvalidArgumentError extends InterlockError {}
export class PatternError extends InterlockError {}
export class InvalidURIError extends InterlockError {}
export class ConflictError extends InterlockError {}
export class LimitError extends InterlockError {}
export class UnknownRouteError extends InterlockError {}
export class CallbackError extends InterlockError {}
export class MethodNotAllowedError extends InterlockError {
  /** The methods under which routes take the path. */
  allowed: string[];
}

/** The header's constants (codes, verbs, flags, default limits, version), from interlock.h through the addon. */
export const constants: Readonly<Record<string, number> & { ILK_VERSION: string }>;
/** The library's version (ilk_version()). */
export const version: string;
