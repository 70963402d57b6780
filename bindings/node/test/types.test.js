'use strict';
// index.d.ts type-checks code that uses the package (test/types/use.ts, tsc --strict), and
// rejects a call of the wrong type. tsc is Debian's node-typescript (make node-deps installs it).

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const TYPES = path.join(__dirname, 'types');
const tsc = ['/usr/bin/tsc', '/usr/local/bin/tsc'].find((p) => fs.existsSync(p));

test('index.d.ts declares the package as it is used', { skip: tsc ? false : 'tsc is not installed (Debian node-typescript)' }, () => {
  const good = spawnSync(tsc, ['-p', TYPES], { encoding: 'utf8' });
  assert.equal(good.status, 0, good.stdout + good.stderr);
  // The same project with a wrong call: tsc must refuse it.
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'interlock-types-'));
  try {
    fs.writeFileSync(path.join(folder, 'bad.ts'), "import { Router } from 'interlock';\nnew Router().match(1);\n");
    const config = JSON.parse(fs.readFileSync(path.join(TYPES, 'tsconfig.json'), 'utf8'));
    config.compilerOptions.baseUrl = TYPES;
    config.compilerOptions.typeRoots = [path.join(TYPES, 'typeroots')];
    config.files = [path.join(folder, 'bad.ts')];
    fs.writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify(config));
    const bad = spawnSync(tsc, ['-p', folder], { encoding: 'utf8' });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stdout, /TS2345: Argument of type 'number' is not assignable to parameter of type 'string'/);
  } finally {
    fs.rmSync(folder, { recursive: true });
  }
});
