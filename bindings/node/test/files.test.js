'use strict';
// Route files: load() of text or bytes, all or nothing, errors with line, column and offset;
// loadFile(); a loaded route's key=value pairs; destinations bound by name.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const interlock = require('..');

const ROUTES = `# the app's routes
GET /users/:id            name=user      owner=accounts
myapp://settings/profile  name=settings  # the settings screen
`;

test('load adds every route of a file and gives their ids; destinations bind by name', () => {
  const router = new interlock.Router();
  router.addRoute('/first');
  assert.deepEqual(router.load(ROUTES), [2, 3]);
  router.setDestination('user', (req) => `user ${req.params.id} of ${router.routeValue('user', 'owner')}`);
  assert.equal(router.resolve('/users/7', 'GET').response.text, 'user 7 of accounts');
  assert.equal(router.routeValue('user', 'owner'), 'accounts');
  assert.equal(router.routeValue('user', 'team'), null);
  assert.equal(router.routeValue(1, 'owner'), null);
  assert.equal(router.match('myapp://settings/profile').name, 'settings');
  assert.deepEqual(router.load(Buffer.from('/health name=health\n')), [4]);
  assert.deepEqual(router.load(new Uint8Array(Buffer.from('/ready\n'))), [5]);
  assert.throws(() => router.routeValue('nobody', 'owner'), { name: 'UnknownRouteError' });
});

test('a bad line adds nothing: the error has code, line, column and offset', () => {
  const router = new interlock.Router();
  router.load('GET /users/:id name=user\n');
  const text = '/health name=health\nGET /users/:other\n';
  assert.throws(() => router.load(text), (error) => {
    assert.ok(error instanceof interlock.ConflictError);
    assert.equal(error.code, 'ILK_ECONFLICT');
    assert.deepEqual([error.line, error.column, error.offset], [2, 5, 24]);
    assert.match(error.message, /^line 2, column 5: 'GET \/users\/:other' conflicts with 'GET \/users\/:id'/);
    return true;
  });
  assert.equal(router.size, 1);
  assert.throws(() => router.routeId('health'), { name: 'UnknownRouteError' });
  assert.throws(() => router.load('/a\n/b/:(\n'), (error) => error instanceof interlock.PatternError && error.line === 2 && error.column === 4 && error.offset === 6);
  assert.throws(() => router.load(Buffer.from([0x2f, 0x61, 0xff, 0x0a])), (error) => error instanceof interlock.PatternError && error.offset === 2);
  assert.throws(() => router.load('/a\u0000b\n'), (error) => error instanceof interlock.PatternError && error.offset === 2);
  assert.equal(router.size, 1);
});

test('loadFile reads a file; its errors begin PATH:LINE:COLUMN', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'interlock-'));
  try {
    const good = path.join(folder, 'routes.txt');
    fs.writeFileSync(good, ROUTES);
    const router = new interlock.Router();
    assert.deepEqual(router.loadFile(good), [1, 2]);
    const bad = path.join(folder, 'more.txt');
    fs.writeFileSync(bad, '/health name=health\nGET /users/:other\n');
    assert.throws(() => router.loadFile(bad), (error) => {
      assert.equal(error.path, bad);
      assert.ok(error.message.startsWith(`${bad}:2:5: 'GET /users/:other' conflicts with`), error.message);
      return true;
    });
    assert.throws(() => router.loadFile(path.join(folder, 'missing.txt')), { code: 'ENOENT' });
  } finally {
    fs.rmSync(folder, { recursive: true });
  }
});
