import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/**
 * The messages between bench/webhooks.ts and the processes it starts for the sustained phase:
 * a webhook receiver (bench/webhookReceiverProcess.ts) and worker processes
 * (bench/webhookWorkerProcess.ts). Times are wall-clock milliseconds with sub-millisecond
 * precision (`epochNow`), comparable across processes on one machine.
 */
export const epochNow = (): number => performance.timeOrigin + performance.now();

export type ReceiverMessage =
  | { type: 'ready'; url: string; caFile: string }
  /** First POSTs seen since the last batch: [webhook-id, epoch ms]. */
  | { type: 'firstPosts'; posts: Array<[string, number]> }
  | { type: 'counts'; requests: number; distinct: number; duplicated: Array<[string, number]> };

export type ReceiverCommand = { type: 'counts' } | { type: 'stop' };

export interface Tenant {
  orgId: string;
  workspaceId: string;
}

export interface EmittedEvent {
  id: string;
  at: number;
}

export type WorkerCommand =
  /** Closed loop of `count` probe workflows (bench/ceilingWorkflow.ts), `concurrency` at a time. */
  | { type: 'probe'; count: number; concurrency: number }
  /** Closed loop of `count` real emissions, `concurrency` at a time. */
  | { type: 'burst'; tenants: Tenant[]; count: number; concurrency: number }
  /** Open loop: one emission every 1000/ratePerS ms from startAt for durationMs, whatever the previous ones do. */
  | { type: 'steady'; tenants: Tenant[]; ratePerS: number; durationMs: number; startAt: number }
  | { type: 'stop' };

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'probed'; begin: number; lastTouch: number; count: number }
  | { type: 'emitted'; events: EmittedEvent[]; failures: number; lagMaxMs: number; firstError?: string };

/** A child process running a bench/*.ts module through tsx, with an IPC channel. */
export function forkBenchProcess(module: string, env: NodeJS.ProcessEnv, opts: { cpuProfileDir?: string } = {}): ChildProcess {
  return fork(join(__dirname, module), [], {
    execArgv: ['--import', 'tsx', ...(opts.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfileDir] : [])],
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The next message of `type` from a child, or an error when it exits first. */
export function nextMessage<M extends { type: string }, T extends M['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs = 600_000,
): Promise<Extract<M, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no ${type} message in ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: M) => {
      if (m.type === type) done(undefined, m as Extract<M, { type: T }>);
    };
    const onExit = (code: number | null) => done(new Error(`bench process exited (${code}) before sending ${type}`));
    const done = (err?: Error, m?: Extract<M, { type: T }>) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(m!);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}
