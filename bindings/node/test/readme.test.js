'use strict';
// The JavaScript examples of the project's README and of this package's README run as written
// (require('interlock') and require('./bindings/node') being this package), and the values their
// comments show are the values they give.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');

const PACKAGE = path.join(__dirname, '..');
const ROOT = path.join(PACKAGE, '..', '..');

function blocks(file) {
  return [...fs.readFileSync(file, 'utf8').matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

function run(source) {
  const local = (name) => require(name === 'interlock' || name === './bindings/node' ? PACKAGE : name);
  // Each line `expression;   // shown` is checked: `shown` is how Node prints the value.
  const checks = [];
  const body = source.split('\n').map((line) => {
    const m = /^(\S.*?);\s+\/\/ (.+)$/.exec(line);
    if (!m || /^(const|let|var|router\.add|try|\})/.test(m[1])) return line;
    checks.push(m[2]);
    return `__shown.push(${m[1]});`;
  }).join('\n');
  const shown = [];
  new Function('require', '__shown', body)(local, shown);  // eslint-disable-line no-new-func
  return checks.map((expected, i) => [expected, shown[i]]);
}

const examples = [
  ...blocks(path.join(ROOT, 'README.md')).map((b, i) => [`README.md ${i}`, b]),
  ...blocks(path.join(PACKAGE, 'README.md')).map((b, i) => [`bindings/node/README.md ${i}`, b]),
];

test('the READMEs have JavaScript examples', () => {
  assert.ok(examples.filter(([name]) => name.startsWith('README.md')).length >= 1);
  assert.ok(examples.filter(([name]) => name.startsWith('bindings')).length >= 2);
});

for (const [name, source] of examples) {
  test(`example: ${name}`, () => {
    for (const [expected, value] of run(source)) {
      const printed = util.inspect(value, { breakLength: Infinity });
      if (expected.includes('...')) {
        // An abridged object: each key: value pair shown is in what was printed.
        for (const part of expected.replace(/^\{ |,? \.\.\. \}$/g, '').split(/, (?=\w+:)/)) assert.ok(printed.includes(part), `${printed} lacks ${part}`);
      } else {
        assert.equal(printed, expected);
      }
    }
  });
}
