// Type-checked by types.test.js (tsc --strict): the declarations of index.d.ts in use.
import { Router, Response, Abort, MethodNotAllowedError, PatternError, constants, version, Match } from 'interlock';
const router = new Router({ caseInsensitive: true });
const id: number = router.addRoute('GET /users/:id', { name: 'user', data: { team: 'a' }, destination: (req) => `user ${req.params.id}` });
router.addRoute('/x', () => new Response({ status: 201, body: 'x', headers: [['a', 'b']] }));
router.addFilter((req, next) => (req.path === '/old' ? req.redirect('/x') : next(req)), { name: 'f' });
router.addFilter((req, next) => (req.query.token ? next(req) : new Response({ status: 401, headers: [['WWW-Authenticate', 'Bearer']] })));
router.addFilter((req, next) => (req.path === '/closed' ? 403 : next(req)));
router.addRequestInterceptor((req) => { req.metadata.a = 'b'; if (req.query.deny) throw new Abort('no'); }, { route: 'user' });
router.addResponseInterceptor((res, req) => { res.retry(); void req.state; });
const m: Match<{ team: string }> | null = router.match<{ team: string }>('/users/1', 'GET');
if (m) { const t: string | undefined = m.data?.team; void t; }
try { router.match('/users/1', 'POST'); } catch (e) { if (e instanceof MethodNotAllowedError) { const a: string[] = e.allowed; void a; } }
try { router.addRoute('/:('); } catch (e) { if (e instanceof PatternError) { const o: number | undefined = e.offset; void o; } }
const r = router.resolve('/users/1', 'GET');
const s: string = r.status; const text: string = r.response.text; void s; void text;
const ids: number[] = router.load('GET /a name=a\n'); void ids; void id;
const n: number = constants.ILK_STOP; const v: string = version; void n; void v;
router.explain('/x').candidates.forEach((c) => c.why_not);
