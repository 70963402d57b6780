'use strict';
// Node.js doors on the same tables: interlock's match (the addon, bindings/node), and the peers
// Express 4's Router and path-to-regexp 6 (Debian's node-express and node-path-to-regexp, found
// through NODE_PATH=/usr/share/nodejs), each checked before it is timed. Every door's pass does
// the whole work for every request: the lookup under the request's method, the route's id, and
// every parameter's name and value, their lengths added up; a pass returns [sum of route ids, sum
// of those lengths], which each record carries (route_sum, param_bytes) for run.py to check.
// The doors are timed in turn, batch by batch, so that each ratio compares batches side by side.
// Usage: node bench.js ROUTES REQUESTS TABLE [seconds]. One JSON line per door.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const PEER_ROUTES = 1000;
const interlock = require(path.join(ROOT, 'bindings', 'node'));

function read(file, expected) {
  return fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim().split(/\s+/))
    .filter((p) => p.length >= (expected ? 3 : 2)).map((p) => p.slice(0, expected ? 3 : 2));
}

function tryRequire(name) {
  try {
    return require(name);
  } catch (error) {
    return null;
  }
}

function print(record) {
  process.stdout.write(JSON.stringify(record) + '\n');
}

// A door: `run` is one pass (sync, or async for Express, whose router defers some answers with
// setImmediate); it returns [route_sum, param_bytes].
async function timeDoors(doors, table, seconds) {
  for (const d of doors) {
    const [routeSum, bytes] = await d.run();
    d.extra = { ...d.extra, route_sum: routeSum, param_bytes: bytes };
    // Warm up (the JIT compiles the pass), then time a few passes to size the batches.
    for (let w = 0; w < 5; w++) await d.run();
    const t = process.hrtime.bigint();
    for (let w = 0; w < 3; w++) await d.run();
    const one = Number(process.hrtime.bigint() - t) / 3e9;
    d.passes = one > 0 ? Math.max(1, Math.floor(seconds / one) + 1) : 1;
    d.ns = [];
  }
  for (let b = 0; b < 7; b++) {
    for (const d of doors) {
      const t = process.hrtime.bigint();
      for (let p = 0; p < d.passes; p++) await d.run();
      d.ns.push(Math.round(Number(process.hrtime.bigint() - t) / (d.passes * d.perPass) * 100) / 100);
    }
  }
  const ours = doors[0];
  for (const d of doors) {
    const extra = { ...d.extra };
    if (d === ours && doors.length > 1) {
      extra.ratios_to = {};
      for (const peer of doors.slice(1)) {
        extra.ratios_to[peer.door] = ours.ns.map((x, i) => Math.round((x / peer.ns[i]) * 1e4) / 1e4);
      }
    }
    print({ door: d.door, table, lookups_per_batch: d.passes * d.perPass, ns: d.ns, ...extra });
  }
}

// The lengths of the names and values of a lookup's parameters, added up.
function paramBytes(params) {
  let size = 0;
  for (const name in params) size += name.length + params[name].length;
  return size;
}

// A pass over `count` requests, `lookup(i)` answering request i with { id, params } or null:
// [sum of route ids, sum of paramBytes].
function tally(count, lookup) {
  let ids = 0;
  let size = 0;
  for (let i = 0; i < count; i++) {
    const found = lookup(i);
    if (found !== null) {
      ids += found.id;
      size += paramBytes(found.params);
    }
  }
  return [ids, size];
}

function interlockDoor(routes, requests, table) {
  const router = new interlock.Router();
  const t = process.hrtime.bigint();
  for (const [method, pattern] of routes) router.addRoute(method === '-' ? pattern : `${method} ${pattern}`);
  router.compile();
  const compileMs = Number(process.hrtime.bigint() - t) / 1e6;
  const pairs = requests.map(([m, u]) => [u, m === '-' ? undefined : m]);
  // A path that routes take only under other methods is a miss here, as at every door
  // (match throws MethodNotAllowedError for it).
  const match = (uri, method) => {
    try {
      return router.match(uri, method);
    } catch (error) {
      if (error instanceof interlock.MethodNotAllowedError) return null;
      throw error;
    }
  };
  const wrong = requests.filter(([m, u, e], i) => ((match(...pairs[i]) || { id: 0 }).id) !== Number(e)).length;
  const run = () => tally(pairs.length, (i) => match(pairs[i][0], pairs[i][1]));
  return {
    door: 'Node interlock match', perPass: requests.length, run,
    extra: { routes: routes.length, checked: requests.length, wrong, compile_ms: Math.round(compileMs * 100) / 100 },
  };
}

// path-to-regexp 6 as a router: each route's match() function, tried in order under its method
// (how Express's layers use it), the parameters decoded.
function pathToRegexpDoor(p2r, routes, requests) {
  const table = routes.map(([method, pattern], i) => ({
    method, id: i + 1, match: p2r.match(pattern, { decode: decodeURIComponent }),
  }));
  const lookup = (method, uri) => {
    for (let i = 0; i < table.length; i++) {
      const route = table[i];
      if (route.method !== method) continue;
      const found = route.match(uri);
      if (found) return { id: route.id, params: found.params };
    }
    return null;
  };
  const wrong = requests.filter(([m, u, e]) => ((lookup(m, u) || { id: 0 }).id) !== Number(e)).length;
  const run = () => tally(requests.length, (i) => lookup(requests[i][0], requests[i][1]));
  return { door: 'path-to-regexp 6 (Node)', perPass: requests.length, run, extra: { checked: requests.length, wrong } };
}

// Express 4's Router, as an app's router dispatches: router.handle(req, res, done) with each
// route's handler noting its id and reading req.params; a miss ends in `done`. Express defers
// some dispatches (a miss, and a walk of more than 100 layers) with setImmediate: such a request
// is awaited, the others answer synchronously.
function expressDoor(express, routes, requests) {
  const router = express.Router();
  let answer = null;
  routes.forEach(([method, pattern], i) => {
    router[method.toLowerCase()](pattern, (req, res) => {
      answer = [i + 1, req.params];
    });
  });
  const one = (method, uri) => {
    answer = null;
    let settled = false;
    let wake = null;
    const done = () => {
      settled = true;
      if (wake) wake();
    };
    router.handle({ method, url: uri, originalUrl: uri }, {}, done);
    if (answer !== null || settled) return answer;
    return new Promise((resolve) => {
      wake = () => resolve(answer);
    });
  };
  const run = async () => {
    let ids = 0;
    let size = 0;
    for (let i = 0; i < requests.length; i++) {
      let found = one(requests[i][0], requests[i][1]);
      if (found instanceof Promise) found = await found;
      if (found !== null) {
        ids += found[0];
        size += paramBytes(found[1]);
      }
    }
    return [ids, size];
  };
  return { door: 'Express 4 Router (Node)', perPass: requests.length, run, one, extra: { checked: requests.length } };
}

async function main() {
  const [routesPath, requestsPath, table, secondsText] = process.argv.slice(2);
  const seconds = secondsText === undefined ? 0.2 : Number(secondsText);
  const routes = read(routesPath, false);
  const requests = read(requestsPath, true).filter(([, , e]) => e !== 'bad');
  const plain = routes.every(([m, p]) => m !== '-' && !p.includes('://') && !p.includes('(') && !p.includes('*'));
  const doors = [interlockDoor(routes, requests, table)];
  const missing = [];
  // Both peers try the routes one by one: on the 10,000- and 100,000-route tables a pass would
  // take minutes, so they run on tables up to PEER_ROUTES routes.
  if (plain && routes.length > PEER_ROUTES) {
    const why = `they try routes one by one: run on tables of at most ${PEER_ROUTES} routes`;
    missing.push(['path-to-regexp 6 (Node)', why], ['Express 4 Router (Node)', why]);
  } else if (plain) {
    const p2r = tryRequire('path-to-regexp');
    const express = tryRequire('express');
    if (p2r) doors.push(pathToRegexpDoor(p2r, routes, requests));
    else missing.push(['path-to-regexp 6 (Node)', 'path-to-regexp is not installed (Debian node-path-to-regexp)']);
    if (express) {
      const d = expressDoor(express, routes, requests);
      // Checked before it is timed, as the others (some answers come after a setImmediate).
      let wrong = 0;
      for (const [m, u, e] of requests) {
        let found = d.one(m, u);
        if (found instanceof Promise) found = await found;
        if ((found === null ? 0 : found[0]) !== Number(e)) wrong++;
      }
      d.extra.wrong = wrong;
      doors.push(d);
    } else {
      missing.push(['Express 4 Router (Node)', 'express is not installed (Debian node-express)']);
    }
  } else {
    missing.push(['path-to-regexp 6 (Node)', 'schemes, constraints, optional parts or routes without a method']);
    missing.push(['Express 4 Router (Node)', 'schemes, constraints, optional parts or routes without a method']);
  }
  await timeDoors(doors, table, seconds);
  for (const [door, why] of missing) print({ door, table, unsupported: why });
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
