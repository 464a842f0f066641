import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Config } from '../../core/config';
import { freePort, waitFor } from '../../scripts/localServices';

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/** The API as a real separate process (`tsx api/server.ts`) on a free port, for multi-replica and log tests. */
export async function startApiProcess(config: Config, env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'api/server.ts'], {
    cwd: join(__dirname, '..', '..'),
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      MONGODB_URI: config.mongodbUri,
      TEMPORAL_ADDRESS: config.temporal.address,
      TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
      SECRETS_ENCRYPTION_KEY: config.secretsKey.toString('base64'),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor('API process', async () => (await fetch(`${url}/healthz`)).ok, 60_000, child);
  return {
    url,
    child,
    output: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
