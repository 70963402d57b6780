'use strict';
// One lookup's answer as plain data, for tests that compare answers whole:
// { status: 'OK', route, params } | { status: 'NOT_FOUND' } |
// { status: 'METHOD_NOT_ALLOWED', allowed }. `route` is the route's name, or its id without one.

const { MethodNotAllowedError } = require('../..');

function answerOf(router, uri, method) {
  let found;
  try {
    found = router.match(uri, method);
  } catch (error) {
    if (error instanceof MethodNotAllowedError) return { status: 'METHOD_NOT_ALLOWED', allowed: error.allowed };
    throw error;
  }
  if (found === null) return { status: 'NOT_FOUND' };
  return { status: 'OK', route: found.name === null ? found.id : found.name, params: { ...found.params } };
}

module.exports = { answerOf };
