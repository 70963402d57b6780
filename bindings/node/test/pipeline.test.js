'use strict';
// The pipeline with JavaScript callbacks: filters (continue, stop, redirect), guards and the
// pending link, request and response interceptors (changes, abort, retry), the default
// destination, the state a resolve shares, and exceptions thrown by callbacks.

const test = require('node:test');
const assert = require('node:assert/strict');
const interlock = require('..');
const { Router, Abort, Response } = interlock;

test('a destination returns nothing, a status, a body or a response', () => {
  const router = new Router();
  router.addRoute('/none', () => undefined);
  router.addRoute('/status', () => 204);
  router.addRoute('/text', (req) => `hello ${req.query.who}`);
  router.addRoute('/bytes', () => Buffer.from([1, 2, 3]));
  router.addRoute('/response', () => new Response({ status: 201, body: 'made', headers: [['location', '/x']] }));
  router.addRoute('/plain', () => ({ status: 202, headers: { 'x-a': '1' } }));
  assert.deepEqual([router.resolve('/none').response.status, router.resolve('/none').response.body.length], [200, 0]);
  assert.equal(router.resolve('/status').response.status, 204);
  assert.equal(router.resolve('/text?who=ada').response.text, 'hello ada');
  assert.deepEqual([...router.resolve('/bytes').response.body], [1, 2, 3]);
  const made = router.resolve('/response').response;
  assert.deepEqual([made.status, made.text, made.headers], [201, 'made', [['location', '/x']]]);
  assert.deepEqual(router.resolve('/plain').response.headers, [['x-a', '1']]);
  const missing = router.resolve('/nope');
  assert.deepEqual([missing.status, missing.response.status, missing.routeId], ['NOT_FOUND', 404, 0]);
  router.setDefault((req) => `no route for ${req.path}`);
  assert.equal(router.resolve('/nope').response.text, 'no route for /nope');
  router.setDefault(null);
  assert.equal(router.resolve('/nope').response.status, 404);
});

test('filters continue, stop and redirect, in order, and see what the stages after them give', () => {
  const router = new Router();
  const order = [];
  router.addRoute('GET /users/:id', { name: 'user', destination: (req) => `user ${req.params.id} ${req.metadata.who || ''}` });
  router.addFilter(function legacy(req, next) {
    order.push('legacy');
    if (req.path.startsWith('/old/')) return req.redirectTo('user', { id: req.path.slice(5) });
    if (req.path === '/away') return req.redirect('/users/9');
    return next(req);
  });
  router.addFilter((req, next) => {
    order.push('gate');
    if (req.query.stop) return undefined;
    req.metadata.who = 'gate';
    const response = next(req);
    response.headers.push(['x-filtered', 'yes']);
    return response;
  }, { name: 'gate' });
  const redirected = router.resolve('/old/5', 'GET');
  assert.equal(redirected.status, 'OK');
  assert.equal(redirected.response.text, 'user 5 gate');
  assert.deepEqual(redirected.redirects, ['/users/5']);
  assert.deepEqual(redirected.response.headers, [['x-filtered', 'yes']]);
  assert.deepEqual(order, ['legacy', 'legacy', 'gate']);
  assert.equal(router.resolve('/away', 'GET').response.text, 'user 9 gate');
  const stopped = router.resolve('/users/1?stop=1', 'GET');
  assert.equal(stopped.status, 'STOPPED');
  const trace = stopped.trace.map((t) => `${t.stage}:${t.name}:${t.decision}`);
  assert.deepEqual(trace, ['match:/users/1?stop=1:user', 'filter:legacy:continue', 'filter:gate:stop']);
});

test('a filter that called next() and returns a status or a body is a TypeError, not a change dropped', () => {
  const router = new Router();
  router.addRoute('/a', () => 'a');
  router.addFilter((req, next) => {
    const response = next(req);
    switch (req.query.answer) {
      case 'status': return 401;
      case 'text': return 'replaced';
      case 'response': response.status = 203; return response;
      default: return undefined;
    }
  }, { name: 'late' });
  assert.throws(() => router.resolve('/a?answer=status'), { name: 'TypeError', message: /a filter's return value after next\(\) must be undefined or a response object/ });
  assert.throws(() => router.resolve('/a?answer=text'), { name: 'TypeError' });
  assert.equal(router.resolve('/a?answer=response').response.status, 203);
  assert.equal(router.resolve('/a').response.text, 'a');
});

test('a filter that stops answers with what it returned, read as a destination\'s', () => {
  const router = new Router();
  const ran = [];
  router.addRoute('/a', () => { ran.push('destination'); });
  router.addFilter((req, next) => {
    switch (req.query.answer) {
      case 'response': return new Response({ status: 401, body: 'no', headers: [['WWW-Authenticate', 'Bearer']] });
      case 'plain': return { status: 403, headers: { 'x-why': 'closed' } };
      case 'status': return 429;
      case 'text': return 'closed';
      case 'bytes': return Buffer.from('closed');
      case 'nothing': return undefined;
      case 'wrong': return true;
      default: return next(req);
    }
  }, { name: 'gate' });
  const answer = (uri) => {
    const result = router.resolve(uri);
    assert.equal(result.status, 'STOPPED', uri);
    const { status, text, headers } = result.response;
    return [status, text, headers];
  };
  assert.deepEqual(answer('/a?answer=response'), [401, 'no', [['WWW-Authenticate', 'Bearer']]]);
  assert.deepEqual(answer('/a?answer=plain'), [403, '', [['x-why', 'closed']]]);
  assert.deepEqual(answer('/a?answer=status'), [429, '', []]);
  assert.deepEqual(answer('/a?answer=text'), [200, 'closed', []]);
  assert.deepEqual(answer('/a?answer=bytes'), [200, 'closed', []]);
  assert.deepEqual(answer('/a?answer=nothing'), [200, '', []], 'a stop that answers nothing: an empty 200, as before');
  assert.deepEqual(ran, []);
  const trace = router.resolve('/a?answer=response').trace.map((t) => `${t.stage}:${t.name}:${t.decision}`);
  assert.deepEqual(trace, ['match:/a?answer=response:/a', 'filter:gate:stop']);
  assert.throws(() => router.resolve('/a?answer=wrong'), { name: 'TypeError', message: /a stopping filter's return value must be/ });
  assert.equal(router.resolve('/a').status, 'OK');
  assert.deepEqual(ran, ['destination']);
});

test('a filter that calls next twice, or after it returned, gets an error', () => {
  const router = new Router();
  let kept = null;
  router.addRoute('/a', () => 'a');
  router.addFilter((req, next) => {
    kept = next;
    next(req);
    return next(req);
  });
  assert.throws(() => router.resolve('/a'), { name: 'CallbackError', message: /next\(\) called twice/ });
  assert.throws(() => kept(), { name: 'CallbackError', message: /after its filter returned/ });
});

test('a guard refuses: GUARDED, the link pending, replayed once allowed', () => {
  const router = new Router();
  const session = { user: null };
  router.addRoute('myapp://account/:section', {
    name: 'account',
    guard: () => session.user !== null,
    destination: (req) => `account ${req.params.section} for ${session.user}`,
  });
  const refused = router.resolve('myapp://account/billing');
  assert.equal(refused.status, 'GUARDED');
  assert.equal(router.pendingLink(), 'myapp://account/billing');
  session.user = 'ada';
  const replayed = router.replayPendingLink();
  assert.equal(replayed.status, 'OK');
  assert.equal(replayed.response.text, 'account billing for ada');
  assert.equal(router.pendingLink(), null);
  assert.equal(router.replayPendingLink(), null);
  router.setGuard('account', () => false);
  router.resolve('myapp://account/x');
  assert.equal(router.takePendingLink(), 'myapp://account/x');
  assert.equal(router.pendingLink(), null);
  router.setGuard('account', null);
  assert.equal(router.resolve('myapp://account/x').status, 'OK');
});

test('interceptors: request changes reach the destination; responses change; abort; retry', () => {
  const router = new Router();
  let attempts = 0;
  router.addRoute('/items/:id', { name: 'item', destination: (req) => `${req.params.id}:${req.params.extra}:${req.metadata.trace}:${req.state.attempt}` });
  router.addRequestInterceptor((req) => {
    req.params.extra = 'added';
    req.metadata.trace = 't1';
    if (req.query.deny) throw new Abort('denied by policy');
  }, { name: 'tagger' });
  router.addResponseInterceptor((response, req) => {
    attempts += 1;
    req.state.attempt = attempts;
    if (req.query.retry && attempts < 2) response.retry();
    response.headers.push(['x-attempt', String(attempts)]);
  });
  router.addResponseInterceptor((response) => {
    response.status = 203;
  }, { route: 'item' });
  const ok = router.resolve('/items/7');
  assert.equal(ok.status, 'OK');
  assert.equal(ok.response.text, '7:added:t1:undefined');
  assert.equal(ok.response.status, 203);
  assert.deepEqual(ok.response.headers, [['x-attempt', '1']]);
  assert.equal(ok.state.attempt, 1);
  const aborted = router.resolve('/items/7?deny=1');
  assert.equal(aborted.status, 'ABORTED');
  assert.equal(aborted.error, 'denied by policy');
  attempts = 0;
  const retried = router.resolve('/items/8?retry=1');
  assert.equal(retried.status, 'OK');
  assert.equal(retried.response.text, '8:added:t1:1');
  assert.ok(retried.trace.some((t) => t.stage === 'retry'));
  const names = ok.trace.map((t) => t.name);
  assert.ok(names.includes('tagger'));
});

test('a request interceptor removes a parameter: later stages no longer see it', () => {
  const router = new Router();
  router.addRoute('/a/:x/:y', (req) => JSON.stringify(req.params));
  router.addRequestInterceptor((req) => { delete req.params.x; });
  assert.equal(router.resolve('/a/1/2').response.text, '{"y":"2"}');
});

test('exceptions thrown by callbacks are thrown from resolve, the same object', () => {
  const router = new Router();
  const boom = new RangeError('kaboom');
  router.addRoute('/destination', () => { throw boom; });
  router.addRoute('/guard', { guard: () => { throw new SyntaxError('bad guard'); }, destination: () => 'x' });
  router.addRoute('/filter', () => 'x');
  router.addRoute('/response', () => 'x');
  router.addRoute('/value', () => { throw 42; });  // eslint-disable-line no-throw-literal
  router.addRoute('/fine', () => 'fine');
  router.addFilter((req, next) => {
    if (req.path === '/filter') throw new Error('in filter');
    return next(req);
  });
  router.addResponseInterceptor((res, req) => { if (req.path === '/response') throw new TypeError('in interceptor'); });
  assert.throws(() => router.resolve('/destination'), (error) => error === boom);
  assert.throws(() => router.resolve('/guard'), { name: 'SyntaxError', message: 'bad guard' });
  assert.throws(() => router.resolve('/filter'), { name: 'Error', message: 'in filter' });
  assert.throws(() => router.resolve('/response'), { name: 'TypeError', message: 'in interceptor' });
  assert.throws(() => router.resolve('/value'), (error) => error === 42);
  // The router still works afterwards, and a later resolve does not see an earlier exception.
  const fine = router.resolve('/fine');
  assert.deepEqual([fine.status, fine.response.text], ['OK', 'fine']);
});

test('an exception in a later stage passes through next() to the filter, and out of resolve', () => {
  const router = new Router();
  const boom = new Error('late');
  let caught = null;
  router.addRoute('/a', () => { throw boom; });
  router.addFilter((req, next) => {
    try {
      return next(req);
    } catch (error) {
      caught = error;
      throw error;
    }
  });
  assert.throws(() => router.resolve('/a'), (error) => error === boom);
  assert.equal(caught, boom);
});

test('callbacks may resolve on the same router (nested resolves keep their own state)', () => {
  const router = new Router();
  router.addRoute('/inner', (req) => { req.state.mine = 'inner'; return 'inner'; });
  router.addRoute('/outer', (req) => {
    req.state.mine = 'outer';
    const inner = router.resolve('/inner');
    return `${inner.response.text}/${inner.state.mine}/${req.state.mine}`;
  });
  assert.equal(router.resolve('/outer').response.text, 'inner/inner/outer');
});

test('a wrong value from a callback is a TypeError thrown from resolve', () => {
  const router = new Router();
  router.addRoute('/bool', () => true);
  router.addRoute('/status', () => 700);
  router.addRoute('/body', () => ({ body: 12 }));
  assert.throws(() => router.resolve('/bool'), { name: 'TypeError', message: /a destination's return value must be/ });
  assert.throws(() => router.resolve('/status'), { name: 'InvalidArgumentError', message: /status 700 is outside 100\.\.\.599/ });
  assert.throws(() => router.resolve('/body'), { name: 'TypeError', message: /response body must be a string, a Buffer or a Uint8Array, not number/ });
});

test('a destination that removes its own route: the stages after it still run', () => {
  const router = new Router();
  const seen = [];
  router.addRoute('/once/:x', {
    name: 'once',
    destination: (req) => {
      router.removeRoute('once');
      return `gone ${req.params.x}`;
    },
  });
  router.addResponseInterceptor((response, req) => { seen.push([req.name, req.pattern, req.params.x]); });
  const result = router.resolve('/once/1');
  assert.deepEqual([result.status, result.response.text], ['OK', 'gone 1']);
  assert.deepEqual(seen, [[null, '/once/:x', '1']]);
  assert.equal(router.match('/once/1'), null);
});

test('a callback cannot close the router that is resolving (its error is thrown from resolve)', () => {
  const router = new Router();
  router.addRoute('/close', () => { router.close(); });
  assert.throws(() => router.resolve('/close'), { name: 'InvalidArgumentError', message: /cannot close a router from a callback of its own resolve/ });
  assert.equal(router.match('/close').id, 1);
  router.close();
  assert.throws(() => router.match('/close'), { message: 'the router is closed' });
});

test('an async destination or filter is a TypeError, not an empty 200', () => {
  const destinations = new Router();
  destinations.addRoute('/async', async () => 'later');
  assert.throws(() => destinations.resolve('/async'), { name: 'TypeError', message: /returned a Promise/ });
  const filters = new Router();
  filters.addRoute('/a', () => 'a');
  filters.addFilter(async (req, next) => (req.path === '/gate' ? 'stop' : next(req)), { name: 'gate' });
  assert.throws(() => filters.resolve('/a'), { name: 'TypeError', message: /returned a Promise/ });
  assert.throws(() => filters.resolve('/gate'), { name: 'TypeError', message: /returned a Promise/ });
});
