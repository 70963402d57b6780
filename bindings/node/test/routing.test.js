'use strict';
// Routing in a real Node process: the GitHub API table, deep links with schemes and hosts, 405
// with the allowed methods, URL building, route data and changes to the table.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const interlock = require('..');
const { answerOf } = require('./support/answer');

const GITHUB = path.join(__dirname, '..', '..', '..', 'benchmarks', 'routesets', 'github_api.txt');

function githubRoutes() {
  return fs.readFileSync(GITHUB, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.trim().split(/\s+/));
}

test('the GitHub table: every route answers a URI of its own shape, with its parameters', () => {
  const router = new interlock.Router();
  const routes = githubRoutes();
  assert.equal(routes.length, 203);
  routes.forEach(([method, pattern], i) => {
    assert.equal(router.addRoute(`${method} ${pattern}`), i + 1);
  });
  assert.equal(router.size, 203);
  routes.forEach(([method, pattern], i) => {
    const params = {};
    const uri = pattern.replace(/:(\w+)/g, (_, name) => {
      params[name] = `v-${name}`;
      return `v-${name}`;
    });
    const found = router.match(uri, method);
    assert.ok(found, `${method} ${uri}`);
    assert.equal(found.id, i + 1, `${method} ${uri}`);
    assert.equal(found.pattern, `${method} ${pattern}`);
    assert.deepEqual(found.params, params);
    assert.equal(found.data, null);
    assert.equal(found.name, null);
  });
  assert.equal(router.match('/no/such/path', 'GET'), null);
  assert.equal(router.match('/repos/o/r/stargazers', 'GET').id, routes.findIndex(([m, p]) => m === 'GET' && p === '/repos/:owner/:repo/stargazers') + 1);
});

test('a method of undefined, null or "" takes any method', () => {
  const router = new interlock.Router();
  router.addRoute('PUT /x');
  for (const method of [undefined, null, '']) assert.equal(router.match('/x', method).id, 1);
  assert.equal(router.match('/x').id, 1);
});

test('405: MethodNotAllowedError with the allowed methods, as resolve reports them', () => {
  const router = new interlock.Router();
  router.addRoute('GET /x');
  router.addRoute('PUT /x');
  assert.throws(() => router.match('/x', 'POST'), (error) => {
    assert.ok(error instanceof interlock.MethodNotAllowedError);
    assert.ok(error instanceof interlock.InterlockError);
    assert.equal(error.code, 'ILK_METHOD_NOT_ALLOWED');
    assert.deepEqual(error.allowed, ['GET', 'PUT']);
    assert.match(error.message, /method POST not allowed for \/x; allowed: GET, PUT/);
    return true;
  });
  const result = router.resolve('/x', 'POST');
  assert.equal(result.status, 'METHOD_NOT_ALLOWED');
  assert.deepEqual(result.allowed, ['GET', 'PUT']);
  assert.equal(result.response.status, 405);
  assert.deepEqual(answerOf(router, '/x', 'DELETE'), { status: 'METHOD_NOT_ALLOWED', allowed: ['GET', 'PUT'] });
});

test('deep links: schemes, hosts, wildcard hosts, constraints, optional parts, queries', () => {
  const router = new interlock.Router();
  router.addRoute('myapp://user/:id(\\d+)', { name: 'user' });
  router.addRoute('myapp://user/:name', { name: 'user-by-name' });
  router.addRoute('https://example.com/items/:id', { name: 'item' });
  router.addRoute('https://*.example.com/shop(/:page)', { name: 'shop' });
  router.addRoute('/files/*rest', { name: 'files' });
  assert.deepEqual(answerOf(router, 'myapp://user/42'), { status: 'OK', route: 'user', params: { id: '42' } });
  assert.deepEqual(answerOf(router, 'myapp://user/ada'), { status: 'OK', route: 'user-by-name', params: { name: 'ada' } });
  assert.deepEqual(answerOf(router, 'MYAPP://user/7?tab=x#top'), { status: 'OK', route: 'user', params: { id: '7' } });
  assert.deepEqual(answerOf(router, 'https://EXAMPLE.com/items/a%2Fb'), { status: 'OK', route: 'item', params: { id: 'a/b' } });
  assert.deepEqual(answerOf(router, 'http://example.com/items/1'), { status: 'NOT_FOUND' });
  assert.equal(answerOf(router, 'https://eu.example.com/shop').route, 'shop');
  assert.deepEqual(answerOf(router, 'https://eu.example.com/shop/2').params.page, '2');
  assert.deepEqual(answerOf(router, '/files/a/b/c.txt'), { status: 'OK', route: 'files', params: { rest: 'a/b/c.txt' } });
  // Values decoded, non-ASCII included: the offsets the addon reports count UTF-16 code units.
  assert.deepEqual(answerOf(router, 'myapp://user/%C3%A9%F0%9F%98%80x'), { status: 'OK', route: 'user-by-name', params: { name: 'é😀x' } });
  const result = router.resolve('myapp://user/42?tab=repos&tab=stars&q=a+b#frag');
  assert.equal(result.status, 'OK');
  assert.equal(result.request.scheme, 'myapp');
  assert.deepEqual(result.request.query, { tab: ['repos', 'stars'], q: 'a b' });
  assert.equal(result.request.fragment, 'frag');
});

test('urlFor builds URIs from names and parameters, encoding and checking values', () => {
  const router = new interlock.Router();
  router.addRoute('myapp://user/:id(\\d+)', { name: 'user' });
  router.addRoute('GET /search/:q(/:page)', { name: 'search' });
  assert.equal(router.urlFor('user', { id: 42 }), 'myapp://user/42');
  assert.equal(router.urlFor('search', { q: 'a b/c' }), '/search/a%20b%2Fc');
  assert.equal(router.urlFor('search', { q: 'x', page: '2' }), '/search/x/2');
  assert.throws(() => router.urlFor('user', { id: 'ada' }), { name: 'InvalidArgumentError', code: 'ILK_EINVAL' });
  assert.throws(() => router.urlFor('user', {}), /id/);
  assert.throws(() => router.urlFor('nobody', {}), { name: 'UnknownRouteError', code: 'ILK_ENOROUTE' });
  assert.throws(() => router.urlFor('user', { id: {} }), { name: 'TypeError', message: /params\.id must be a string or a number, not object/ });
  const long = 'x'.repeat(3000);
  assert.equal(router.urlFor('search', { q: long }), `/search/${long}`);
});

test('route data: on match and on the callbacks\' request; set, replaced and cleared', () => {
  const router = new interlock.Router();
  const seen = [];
  const id = router.addRoute('GET /users/:id', { name: 'user', data: { team: 'accounts' }, destination: (req) => { seen.push(req.data); } });
  assert.deepEqual(router.match('/users/7', 'GET').data, { team: 'accounts' });
  router.resolve('/users/7', 'GET');
  assert.deepEqual(seen, [{ team: 'accounts' }]);
  router.setRouteData('user', ['people']);
  assert.deepEqual(router.match('/users/7', 'GET').data, ['people']);
  router.setRouteData(id, null);
  assert.equal(router.match('/users/7', 'GET').data, null);
  router.setRouteData(id, 0);
  assert.equal(router.match('/users/7', 'GET').data, 0);
  router.setRouteData(id, undefined);
  assert.equal(router.match('/users/7', 'GET').data, null);
});

test('removeRoute and replaceRoute: what match answers follows at once', () => {
  const router = new interlock.Router();
  router.addRoute('GET /users/:id', { name: 'user' });
  const health = router.addRoute('GET /health', { name: 'health' });
  assert.equal(router.match('/users/7', 'GET').pattern, 'GET /users/:id');
  router.replaceRoute('user', 'GET /people/:pid');
  assert.equal(router.match('/users/7', 'GET'), null);
  const found = router.match('/people/7', 'GET');
  assert.deepEqual({ id: found.id, name: found.name, pattern: found.pattern, params: found.params },
    { id: 1, name: 'user', pattern: 'GET /people/:pid', params: { pid: '7' } });
  router.removeRoute('health');
  assert.equal(router.match('/health', 'GET'), null);
  assert.throws(() => router.removeRoute(health), { name: 'UnknownRouteError', message: /route 2 was removed/ });
  assert.equal(router.addRoute('GET /health', { name: 'health' }), 3);
  assert.deepEqual(router.routes(), [
    { id: 1, name: 'user', pattern: 'GET /people/:pid' },
    { id: 3, name: 'health', pattern: 'GET /health' },
  ]);
  assert.deepEqual(router.route('health'), { id: 3, name: 'health', pattern: 'GET /health' });
  assert.equal(router.routeId('user'), 1);
  assert.throws(() => router.replaceRoute(1, 'GET /x/:('), (error) => error instanceof interlock.PatternError && error.offset === 7);
  assert.equal(router.match('/people/1', 'GET').id, 1);
  router.compile();
});

test('a parameter called __proto__ is a parameter, not the prototype', () => {
  const router = new interlock.Router();
  router.addRoute('/o/:__proto__/:constructor');
  const found = router.match('/o/x/y');
  assert.equal(Object.getPrototypeOf(found.params), Object.prototype);
  assert.deepEqual(Object.entries(found.params), [['__proto__', 'x'], ['constructor', 'y']]);
});

test('explain says why a URI ends where it does', () => {
  const router = new interlock.Router();
  router.load('GET /users/:id\nGET /users/:id(\\d+)\n');
  const explained = router.explain('/users/42', 'GET');
  assert.equal(explained.answer.route, 2);
  assert.match(explained.reason, /constrained by \(\\d\+\)/);
  assert.ok(Array.isArray(explained.candidates));
});

test('options: caseInsensitive, strictSlash, limits', () => {
  const loose = new interlock.Router({ caseInsensitive: true });
  loose.addRoute('/About');
  assert.equal(loose.match('/about').id, 1);
  const strict = new interlock.Router({ strictSlash: true });
  strict.addRoute('/a');
  assert.equal(strict.match('/a/'), null);
  assert.equal(new interlock.Router().match('/a/'), null);
  const plain = new interlock.Router();
  plain.addRoute('/a');
  assert.equal(plain.match('/a/').id, 1);
  assert.throws(() => new interlock.Router({ strictSlash: 1 }), { name: 'TypeError', message: 'options.strictSlash must be a boolean, not number' });
  assert.throws(() => new interlock.Router({ redirectLimit: -1 }), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => interlock.Router(), { name: 'TypeError' });
});
