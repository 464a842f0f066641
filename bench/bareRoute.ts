import Koa from 'koa';
import Router from '@koa/router';

/**
 * The bare Koa route bench/api.ts compares the API with: the same GET /v1/whoami answering a
 * fixed body of the same shape, with no middleware, in its own process. It binds port 0 and
 * reports its URL over the IPC channel its parent opened.
 */
const app = new Koa();
const router = new Router();
const body = {
  workspace_id: 'ws_bench',
  org_root: 'org_bench',
  application_id: 'app_bench',
  audience: 'https://api.example.test',
  scopes: [] as string[],
  key_id: 'key_bench',
};
router.get('/v1/whoami', (ctx) => {
  ctx.body = body;
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.send?.({ type: 'listening', url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}` });
});
server.keepAliveTimeout = 65_000;
process.once('SIGTERM', () => server.close(() => process.exit(0)));
