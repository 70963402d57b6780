'use strict';
// Bad input: wrong types are TypeErrors naming the argument; malformed patterns and URIs are
// errors with code and offset; text that UTF-8 or a C string cannot carry is refused, not changed.

const test = require('node:test');
const assert = require('node:assert/strict');
const interlock = require('..');
const { Router } = interlock;

function typeError(message) {
  return { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message };
}

test('wrong types: a TypeError naming the argument', () => {
  const router = new Router();
  router.addRoute('/a', { name: 'a' });
  assert.throws(() => router.match(42), typeError('uri must be a string, not number'));
  assert.throws(() => router.match(), typeError('uri must be a string, not undefined'));
  assert.throws(() => router.match('/a', 7), typeError('method must be a string, not number'));
  assert.throws(() => router.resolve(null), typeError('uri must be a string, not null'));
  assert.throws(() => router.addRoute(['/x']), typeError('pattern must be a string, not Array'));
  assert.throws(() => router.addRoute('/x', 5), typeError('options must be a function (the destination) or an object, not number'));
  assert.throws(() => router.addRoute('/x', { destination: 'no' }), typeError('options.destination must be a function, not string'));
  assert.throws(() => router.addRoute('/x', { guard: {} }), typeError('options.guard must be a function, not object'));
  assert.throws(() => router.addRoute('/x', { name: 3 }), typeError('options.name must be a string, not number'));
  assert.throws(() => router.addFilter('f'), typeError('filter must be a function, not string'));
  assert.throws(() => router.addRequestInterceptor(null), typeError('interceptor must be a function, not null'));
  assert.throws(() => router.addResponseInterceptor(() => {}, 'a'), typeError('options must be an object, not string'));
  assert.throws(() => router.setGuard('a', 1), typeError('guard must be a function, not number'));
  assert.throws(() => router.setDestination(true, () => {}), typeError('nameOrId must be a route id (number) or name (string), not boolean'));
  assert.throws(() => router.urlFor('a', 'x'), typeError('params must be an object, not string'));
  assert.throws(() => router.load(12), typeError('text must be a string, a Buffer or a Uint8Array, not number'));
  assert.throws(() => router.removeRoute(1.5), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => router.removeRoute(2 ** 32), { name: 'RangeError', message: /nameOrId 4294967296 is not an integer in 0\.\.\.4294967295/ });
  // Nothing was added by the calls that failed.
  assert.equal(router.size, 1);
});

test('a method of the wrong shape is the library\'s error, with its offset', () => {
  const router = new Router();
  router.addRoute('GET /a');
  assert.throws(() => router.match('/a', 'GE T'), (error) => error instanceof interlock.InvalidArgumentError && error.code === 'ILK_EINVAL' && error.offset === 2);
});

test('malformed patterns: PatternError with code and offset; conflicts name the route', () => {
  const router = new Router();
  assert.throws(() => router.addRoute('/users/:id/:'), (error) => {
    assert.ok(error instanceof interlock.PatternError);
    assert.ok(error instanceof interlock.InterlockError);
    assert.ok(error instanceof Error);
    assert.equal(error.code, 'ILK_EPATTERN');
    assert.equal(error.offset, 11);
    assert.match(error.message, /\(at byte 11\)$/);
    return true;
  });
  router.addRoute('GET /users/:id', { name: 'user' });
  assert.throws(() => router.addRoute('GET /users/:other'), { name: 'ConflictError', code: 'ILK_ECONFLICT', message: /GET \/users\/:id/ });
  assert.throws(() => router.addRoute('GET /x', { name: 'user' }), { name: 'ConflictError' });
  assert.equal(router.size, 1);
});

test('malformed URIs: InvalidURIError with code and offset', () => {
  const router = new Router();
  router.addRoute('/a/:x');
  for (const [uri, offset] of [['/a/%zz', 3], ['/a/b\u0001', 4], ['/a/\u0000', 3]]) {
    assert.throws(() => router.match(uri), (error) => error instanceof interlock.InvalidURIError && error.code === 'ILK_EURI' && error.offset === offset, uri);
    assert.throws(() => router.resolve(uri), (error) => error instanceof interlock.InvalidURIError && error.offset === offset, uri);
  }
  assert.throws(() => router.match(`/a/${'x'.repeat(70000)}`), { name: 'InvalidURIError', code: 'ILK_EURI' });
});

test('a lone surrogate is refused where its bytes would begin, never turned into U+FFFD', () => {
  const router = new Router();
  router.addRoute('/a/:x');
  assert.equal(router.match('/a/\uFFFD').params.x, '\uFFFD');  // a real U+FFFD is text like any other
  assert.throws(() => router.match('/a/\uD800'), (error) => error instanceof interlock.InvalidURIError && error.offset === 3);
  assert.throws(() => router.match('/a/é\uDC00'), (error) => error instanceof interlock.InvalidURIError && error.offset === 5);
  assert.equal(router.match('/a/😀').params.x, '😀');
  assert.throws(() => router.addRoute('/b/\uD83D'), (error) => error instanceof interlock.InvalidArgumentError && error.offset === 3 && /pattern holds a lone surrogate/.test(error.message));
});

test('a NUL byte in a pattern or name is refused with its offset (a C string would end there)', () => {
  const router = new Router();
  assert.throws(() => router.addRoute('/a\u0000/b'), (error) => error instanceof interlock.InvalidArgumentError && error.offset === 2 && /pattern holds a NUL byte/.test(error.message));
  assert.throws(() => router.addRoute('/a', { name: 'x\u0000y' }), { name: 'InvalidArgumentError', message: /options\.name holds a NUL byte/ });
  assert.equal(router.size, 0);
});

test('a closed router refuses every call; close twice is harmless', () => {
  const router = new Router();
  router.addRoute('/a', () => 'a');
  router.close();
  router.close();
  assert.throws(() => router.match('/a'), { name: 'InvalidArgumentError', message: 'the router is closed' });
  assert.throws(() => router.resolve('/a'), { name: 'InvalidArgumentError' });
  assert.throws(() => Router.prototype.match.call({}, '/a'), { name: 'TypeError', code: 'ERR_INVALID_THIS' });
  assert.throws(() => Router.prototype.resolve.call({}, '/a'), { name: 'TypeError', message: /Illegal invocation/ });
});

test('long patterns and URIs go past the stack buffers whole', () => {
  const router = new Router();
  const long = 'segment-of-a-long-path/'.repeat(100);
  router.addRoute(`/${long}:x`, { name: 'long' });
  const found = router.match(`/${long}${'v'.repeat(5000)}`);
  assert.equal(found.params.x.length, 5000);
  assert.equal(router.urlFor('long', { x: 'y' }), `/${long}y`);
  // Characters of two, three and four bytes across the stack buffer's end: never cut short.
  const short = new Router();
  short.addRoute('/a/:x');
  for (const char of ['é', '€', '😀']) {
    for (let n = 500; n < 1100; n += 1) {
      const value = char.repeat(n);
      const found = short.match(`/a/${value}`);
      if (found.params.x !== value) assert.fail(`${n} × ${char}: ${found.params.x.length} units`);
    }
  }
});

test('a method holding a NUL byte or a lone surrogate is refused, never cut or changed', () => {
  const router = new Router();
  router.addRoute('GET /a');
  assert.throws(() => router.match('/a', 'GET\u0000X'), (error) => error instanceof interlock.InvalidArgumentError && error.offset === 3);
  assert.throws(() => router.match('/a', 'G\uD800'), (error) => error instanceof interlock.InvalidArgumentError && error.offset === 1);
  assert.throws(() => router.match('/a', 'G'.repeat(100)), { name: 'InvalidArgumentError' });
  assert.equal(router.match('/a', 'GET').id, 1);
});
