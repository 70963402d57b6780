'use strict';
// Deep-link routing from Node.js: routes, a filter, a guard with its pending link replayed after a
// "login", interceptors, and the trace of each resolve. Run from a checkout after
// `make node-build` (make demo does both).

const path = require('node:path');
const interlock = require(path.join(__dirname, '..', '..', 'bindings', 'node'));

const router = new interlock.Router();
const session = { user: null };

router.addRoute('myapp://product/:sku', {
  name: 'product',
  destination: (req) => `Product ${req.params.sku}${req.metadata.campaign ? ` via ${req.metadata.campaign}` : ''}`,
});
router.addRoute('myapp://account/:section', {
  name: 'account',
  guard: () => session.user !== null,
  destination: (req) => `Account ${req.params.section} for ${session.user}`,
});
router.setDefault(() => new interlock.Response({ status: 404, body: 'Home' }));

router.addFilter(function legacyLinks(req, next) {
  if (req.path.startsWith('/old-product/')) return req.redirectTo('product', { sku: req.path.split('/').pop() });
  return next(req);
});
router.addRequestInterceptor(function campaign(req) {
  if (req.query.utm) req.metadata.campaign = req.query.utm;
}, { route: 'product' });

function show(uri, result) {
  console.log(`${uri}\n  => ${result.status}: ${JSON.stringify(result.response.text)}`);
  for (const entry of result.trace) console.log(`     ${entry.stage.padEnd(21)}${entry.name.padEnd(34)}${entry.decision}`);
  if (router.pendingLink()) console.log(`     pending link: ${router.pendingLink()}`);
  console.log();
}

for (const uri of ['myapp://product/X-100?utm=spring', 'myapp://old-product/X-200',
  'myapp://account/billing?from=push', 'myapp://nowhere']) {
  show(uri, router.resolve(uri));
}

session.user = 'ada';  // the login: the refused link is replayed
show(`replay of ${router.pendingLink()}`, router.replayPendingLink());

console.log('match, no callbacks:', router.match('myapp://product/X-300'));
console.log('urlFor:', router.urlFor('account', { section: 'billing' }));
