import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Config } from '../../core/config';
import { eventually } from './eventually';
import { sharedSettings } from './testConfig';
import { TYPESCRIPT_NODE_ARGS } from './typescriptProcess';

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/**
 * The API as a real separate process (`api/server.ts`, the operator's entry), for multi-replica
 * and log tests. It binds port 0 and reports the port the system chose over an IPC channel, so
 * no other process can take the port between choosing and binding it.
 */
export async function startApiProcess(config: Config, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ApiProcess> {
  const child = spawn(process.execPath, [...nodeArgs, ...TYPESCRIPT_NODE_ARGS, 'api/server.ts'], {
    cwd: join(__dirname, '..', '..'),
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      MONGODB_URI: config.mongodbUri,
      TEMPORAL_ADDRESS: config.temporal.address,
      TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
      SECRETS_ENCRYPTION_KEY: config.secretsKey.toString('base64'),
      ...sharedSettings(config),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = await listeningUrl(child, () => out);
  await eventually(
    'the API process to be healthy',
    () =>
      fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs: 60_000 },
  );
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

/** The URL the process reports once it listens; fails with its output if it exits or says nothing in time. */
function listeningUrl(child: ChildProcess, output: () => string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`the API process did not report its port within ${timeoutMs} ms`), timeoutMs);
    const onExit = (code: number | null) => fail(`the API process exited (${code}) before listening`);
    function done() {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      // Nothing more is expected on the channel; an open one would keep this test process alive.
      if (child.connected) child.disconnect();
    }
    function fail(why: string) {
      done();
      reject(new Error(`${why}:\n${output()}`));
    }
    function onMessage(m: unknown) {
      const msg = m as { type?: string; url?: string };
      if (msg?.type !== 'api-listening' || typeof msg.url !== 'string') return;
      done();
      resolve(msg.url);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
