import { isBrowserClientPath } from '../../api/app';
import { toolServerRouter } from '../../api/mcp/toolServer';
import { v1Routes } from '../../api/routes/index';
import { loadConfig } from '../../core/config';
import { createDeps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';

const config = loadConfig({
  NODE_ENV: 'test',
  HOST: '127.0.0.1',
  PORT: '0',
  MONGODB_URI: 'mongodb://127.0.0.1:1/unused',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
});

describe('the spellings of the tool server path', () => {
  const router = toolServerRouter(createDeps(config, { logger: testLogger() }), v1Routes);
  const served = (path: string) => router.match(path, 'POST').route;

  test.each(['/tools', '/tools/', '/tools//', '/Tools', '/TOOLS/', '/tools/x', '/tools.json', '/toolsx', '/tools%2F', '/tools/.', '//tools', '/', '/v1/tools'])(
    '%s: the Origin rule applies exactly when the tool server answers it',
    (path) => {
      expect(isBrowserClientPath(path)).toBe(served(path));
    },
  );

  test('the tool server answers /tools and /tools/', () => {
    expect([served('/tools'), served('/tools/')]).toEqual([true, true]);
  });
});
