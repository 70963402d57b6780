'use strict';
// What lives and dies with what: routers freed with their JavaScript object (a finalizer, also for
// routers whose callbacks hold them), routers in worker threads, and the package's constants and
// version, which come from interlock.h through the addon.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Worker } = require('node:worker_threads');
const interlock = require('..');

const PACKAGE = path.join(__dirname, '..');
const HEADER = path.join(PACKAGE, '..', '..', 'include', 'interlock.h');

test('routers are freed with their JavaScript object, cycles through callbacks and data included', () => {
  // A child process with --expose-gc: routers whose destination, guard, filter, interceptor and
  // data all hold the router; each is collected (FinalizationRegistry) and its finalizer frees the
  // library's router, calling every free function, without a crash.
  const script = `
    const interlock = require(${JSON.stringify(PACKAGE)});
    let collected = 0;
    const registry = new FinalizationRegistry(() => { collected += 1; });
    function make(i) {
      const router = new interlock.Router();
      router.addRoute('/a/:x', { name: 'a', data: { router }, guard: () => router !== null,
        destination: (req) => router.urlFor('a', { x: req.params.x }) });
      router.addFilter((req, next) => next(req));
      router.addRequestInterceptor(() => { void router; });
      router.addResponseInterceptor(() => { void router; }, { route: 'a' });
      router.setDefault(() => router.size);
      if (router.resolve('/a/' + i).response.text !== '/a/' + i) throw new Error('wrong answer');
      if (router.match('/a/' + i).data.router !== router) throw new Error('wrong data');
      registry.register(router, i);
    }
    (async () => {
      for (let i = 0; i < 200; i++) make(i);
      for (let k = 0; k < 20 && collected < 200; k++) {
        globalThis.gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
      process.stdout.write(JSON.stringify({ collected }));
    })();
  `;
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), { collected: 200 });
});

test('a removed route\'s data and destination are let go of while the router lives', () => {
  const script = `
    const interlock = require(${JSON.stringify(PACKAGE)});
    let collected = 0;
    const registry = new FinalizationRegistry(() => { collected += 1; });
    const router = new interlock.Router();
    (() => {
      for (let i = 0; i < 50; i++) {
        const data = { i };
        const n = i;
        const destination = () => String(n);
        registry.register(data, 'data');
        registry.register(destination, 'destination');
        router.addRoute('/r' + i + '/:x', { name: 'r' + i, data, destination });
        if (router.match('/r' + i + '/1').data !== data) throw new Error('wrong data');
        if (router.resolve('/r' + i + '/1').response.text !== String(i)) throw new Error('wrong answer');
      }
      for (let i = 0; i < 50; i += 2) router.removeRoute('r' + i);
      for (let i = 1; i < 50; i += 2) router.setRouteData(i + 1, null);
    })();
    (async () => {
      for (let k = 0; k < 20 && collected < 75; k++) {
        globalThis.gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
      // The odd routes keep their destinations; every datum and the even destinations are gone.
      process.stdout.write(JSON.stringify({ collected, size: router.size }));
    })();
  `;
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), { collected: 75, size: 25 });
});

test('worker threads: each makes and uses its own routers, beside the main thread\'s', async () => {
  const main = new interlock.Router();
  main.addRoute('/m/:x', (req) => `main ${req.params.x}`);
  const source = `
    const { parentPort } = require('node:worker_threads');
    const interlock = require(${JSON.stringify(PACKAGE)});
    const router = new interlock.Router();
    router.addRoute('/w/:x', (req) => 'worker ' + req.params.x);
    const answers = [];
    for (let i = 0; i < 1000; i++) answers.push(router.match('/w/' + i).params.x === String(i));
    parentPort.postMessage({ all: answers.every(Boolean), body: router.resolve('/w/2').response.text,
      kept: new interlock.Router() instanceof interlock.Router });
  `;
  const workers = [0, 1].map(() => new Worker(source, { eval: true }));
  for (let i = 0; i < 1000; i++) assert.equal(main.match(`/m/${i}`).params.x, String(i));
  const answers = await Promise.all(workers.map((w) => new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  })));
  for (const answer of answers) assert.deepEqual(answer, { all: true, body: 'worker 2', kept: true });
  // Ending a worker whose routers are alive frees them with its environment.
  await Promise.all(workers.map((w) => w.terminate()));
  assert.equal(main.resolve('/m/1').response.text, 'main 1');
});

test('a Router is not shared between threads: a copy posted to a worker is no router', async () => {
  const router = new interlock.Router();
  const worker = new Worker(`
    const { parentPort } = require('node:worker_threads');
    parentPort.once('message', (value) => parentPort.postMessage(typeof value.match));
  `, { eval: true });
  worker.postMessage(router);
  const kind = await new Promise((resolve) => worker.once('message', resolve));
  assert.equal(kind, 'undefined');
  await worker.terminate();
});

test('every constant is the header\'s, and the version is the header\'s', () => {
  const header = fs.readFileSync(HEADER, 'utf8');
  const defined = {};
  for (const [, name, value] of header.matchAll(/^#define (ILK_\w+)\s+\(?(-?(?:0x[0-9a-fA-F]+|\d+))u?\)?\s/gm)) {
    defined[name] = Number(value);
  }
  const numeric = Object.fromEntries(Object.entries(interlock.constants).filter(([k]) => k !== 'ILK_VERSION' && k !== 'ILK_VERSION_NUMBER'));
  assert.ok(Object.keys(numeric).length >= 25);
  for (const [name, value] of Object.entries(numeric)) assert.equal(value, defined[name], name);
  // Every status, verb and flag of the header is exported (not the batch layout's sizes: the
  // addon reads no batch).
  for (const name of Object.keys(defined)) {
    if (name.startsWith('ILK_VERSION') || name.startsWith('ILK_BATCH_') || name === 'ILK_NO_OFFSET') continue;
    assert.ok(name in interlock.constants, `${name} is not exported`);
  }
  const { version } = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  const [major, minor, patch] = ['MAJOR', 'MINOR', 'PATCH'].map((p) => defined[`ILK_VERSION_${p}`]);
  assert.equal(version, `${major}.${minor}.${patch}`);
  assert.equal(interlock.constants.ILK_VERSION, version);
  assert.equal(interlock.version, version);
  assert.equal(interlock.constants.ILK_VERSION_NUMBER, major * 1000000 + minor * 1000 + patch);
});
