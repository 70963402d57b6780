'use strict';
// The conformance suite (spec/conformance/*.json, described in its README.md) through the Node
// addon: every table's lookups, urlFor and explain cases, every refused pattern and conflict, and
// every pipeline scenario. The same data runs through Swift, C, Python and Lua.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Router, Abort, InterlockError, MethodNotAllowedError } = require('..');

const SPEC = path.join(__dirname, '..', '..', '..', 'spec', 'conformance');
const files = fs.readdirSync(SPEC).filter((f) => f.endsWith('.json')).sort();

function entries(section) {
  const out = [];
  for (const file of files) {
    const data = JSON.parse(fs.readFileSync(path.join(SPEC, file), 'utf8'));
    (data[section] || []).forEach((entry, i) => out.push({ where: `${file} ${section}[${i}]`, entry }));
  }
  return out;
}

// The data names statuses as the header does, without "ILK_"; the addon's codes carry it.
const statusOf = (error) => error.code.replace(/^ILK_/, '');

function routerFor(table) {
  const options = table.options || {};
  const router = new Router({ caseInsensitive: !!options.case_insensitive, strictSlash: !!options.strict_slash });
  const ids = table.routes.map((route) => (typeof route === 'string'
    ? router.addRoute(route) : router.addRoute(route.pattern, { name: route.name })));
  return { router, ids };
}

test('the conformance data is there', () => {
  assert.ok(files.length > 0, `no conformance data under ${SPEC}`);
});

for (const { where, entry: table } of entries('tables')) {
  test(`${where} ${table.name}`, () => {
    const { router, ids } = routerFor(table);
    const label = (c) => `${table.name}: ${c.method || ''} ${c.uri} (${table.rule})`;
    for (const c of table.match || []) {
      const want = c.status || 'OK';
      let found;
      try {
        found = router.match(c.uri, c.method);
      } catch (error) {
        if (error instanceof MethodNotAllowedError) {
          assert.equal('METHOD_NOT_ALLOWED', want, label(c));
          if (c.allowed) assert.deepEqual([...error.allowed].sort(), [...c.allowed].sort(), label(c));
          continue;
        }
        if (!(error instanceof InterlockError)) throw error;
        assert.equal(statusOf(error), want, `${label(c)}: ${error.message}`);
        if (c.offset !== undefined) assert.equal(error.offset, c.offset, label(c));
        continue;
      }
      if (found === null) {
        assert.equal('NOT_FOUND', want, label(c));
        continue;
      }
      assert.equal('OK', want, `${label(c)}: matched ${found.id}`);
      assert.equal(found.id, ids[c.route], label(c));
      if (c.params) assert.deepEqual({ ...found.params }, c.params, label(c));
    }
    for (const c of table.url_for || []) {
      const name = table.routes[c.route].name;
      if (c.uri !== undefined) {
        assert.equal(router.urlFor(name, c.params), c.uri, `${table.name}: urlFor ${name}`);
      } else {
        assert.throws(() => router.urlFor(name, c.params), (error) => statusOf(error) === c.status,
          `${table.name}: urlFor ${name}`);
      }
    }
    for (const c of table.explain || []) {
      const explained = router.explain(c.uri, c.method);
      const winner = c.winner === null ? undefined : ids[c.winner];
      assert.equal(explained.answer.route, winner, `${table.name}: explain ${c.uri}`);
      const takers = explained.candidates.filter((k) => k.takes).map((k) => k.route);
      assert.deepEqual(takers, winner === undefined ? [] : [winner], `${table.name}: explain ${c.uri}`);
    }
  });
}

for (const { where, entry: c } of entries('patterns')) {
  test(`${where} ${c.pattern}`, () => {
    const router = new Router();
    if (c.status === 'OK') {
      router.addRoute(c.pattern);
      return;
    }
    assert.throws(() => router.addRoute(c.pattern), (error) => statusOf(error) === c.status
      && (c.offset === undefined || error.offset === c.offset), `${c.pattern} (${c.rule})`);
  });
}

for (const { where, entry: c } of entries('conflicts')) {
  test(where, () => {
    const router = new Router();
    const last = c.routes[c.routes.length - 1];
    c.routes.slice(0, -1).forEach((pattern) => router.addRoute(pattern));
    if (c.with === null) {
      router.addRoute(last);
      return;
    }
    assert.throws(() => router.addRoute(last), (error) => statusOf(error) === 'ECONFLICT'
      && error.message.includes(`'${c.routes[c.with]}'`), `${last} (${c.rule})`);
  });
}

// Pipeline scenarios: every callback records "kind:name" when it runs, then does what `do` says.
for (const { where, entry: c } of entries('pipelines')) {
  test(`${where} ${c.name}`, () => {
    const ran = [];
    const router = new Router();
    const requestInterceptor = (s) => () => {
      ran.push(`request:${s.name}`);
      if (s.do === 'abort') throw new Abort(`${s.name} aborts`);
    };
    const responseInterceptor = (s) => (response, request) => {
      ran.push(`response:${s.name}`);
      if (s.do === 'abort') throw new Abort(`${s.name} aborts`);
      const key = `retried:${s.name}`;
      if (s.do === 'retry' || (s.do === 'retry_once' && !(key in request.state))) {
        request.state[key] = true;
        response.retry();
      }
    };
    const ids = c.routes.map((route) => {
      const guard = route.guard === undefined ? undefined : () => {
        ran.push(`guard:${route.name}`);
        return route.guard === 'allow';
      };
      const id = router.addRoute(route.pattern, { name: route.name, guard, destination: () => { ran.push(`destination:${route.name}`); } });
      for (const s of route.request_interceptors || []) router.addRequestInterceptor(requestInterceptor(s), { route: id, name: s.name });
      for (const s of route.response_interceptors || []) router.addResponseInterceptor(responseInterceptor(s), { route: id, name: s.name });
      return id;
    });
    if (c.default) router.setDefault(() => { ran.push('destination:default'); });
    for (const s of c.filters || []) {
      router.addFilter((request, next) => {
        ran.push(`filter:${s.name}`);
        if (s.do === 'next' || (s.when !== undefined && s.when !== request.path)) return next(request);
        if (s.do === 'stop') return s.respond;
        return request.redirect(s.to);
      }, { name: s.name });
    }
    for (const s of c.request_interceptors || []) router.addRequestInterceptor(requestInterceptor(s), { name: s.name });
    for (const s of c.response_interceptors || []) router.addResponseInterceptor(responseInterceptor(s), { name: s.name });
    for (const step of c.resolve) {
      ran.length = 0;
      const label = `${c.name}: ${step.uri} (${c.rule})`;
      const result = router.resolve(step.uri, step.method);
      assert.equal(result.status, step.status, `${label}: ${result.error}`);
      assert.deepEqual(ran, step.ran, label);
      assert.equal(result.routeId, step.route === null ? 0 : ids[step.route], label);
      if (step.redirects) assert.deepEqual(result.redirects, step.redirects, label);
      if (step.pending !== undefined) assert.equal(router.pendingLink(), step.pending, label);
      if (step.response) {
        const { status, headers, text } = result.response;
        assert.deepEqual({ status, headers, body: text }, step.response, label);
      }
    }
  });
}
