import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../core/config';
import { startApiProcess, type ApiProcess } from '../../test/support/apiProcess';
import { ROOT, freePort, installServices, portOpen, startFerretDb, startTemporalDev, waitFor, type RunningService } from '../localServices';

/**
 * Service control for the chaos run: the same local services as `npm run dev` (FerretDB, the
 * Temporal dev server, the API, workers), on free loopback ports, each one killable and
 * restartable on the same port with the same data. Temporal keeps its state in a file
 * (--db-filename), so a restarted server still knows every running workflow.
 */
export interface WorkerProcess {
  id: number;
  child: ChildProcess;
  ready: Promise<void>;
  startedAt: number;
  /** Resolves with the signal (or exit code) the process ended with. */
  exited: Promise<string>;
}

export class ChaosServices {
  store?: RunningService;
  temporal?: RunningService;
  api?: ApiProcess;
  /** A second API replica behind the load, SIGKILLed by one fault. */
  api2?: ApiProcess;
  workers: WorkerProcess[] = [];
  /** Every worker that exited without being killed by the run (a crash is a finding). */
  unexpectedWorkerExits: string[] = [];
  private nextWorkerId = 1;
  readonly ports: { store: number; temporal: number } = { store: 0, temporal: 0 };

  constructor(
    private readonly dir: string,
    private readonly env: Record<string, string>,
    private readonly say: (m: string) => void,
  ) {}

  static async allocate(dir: string, env: Record<string, string>, say: (m: string) => void): Promise<ChaosServices> {
    await installServices({ temporal: true, ferretdb: true }, say);
    const s = new ChaosServices(dir, env, say);
    s.ports.store = await freePort();
    s.ports.temporal = await freePort();
    return s;
  }

  get mongodbUri(): string {
    return `mongodb://127.0.0.1:${this.ports.store}/chaos`;
  }

  get temporalAddress(): string {
    return `127.0.0.1:${this.ports.temporal}`;
  }

  async startStore(): Promise<void> {
    this.store = await startFerretDb({ port: this.ports.store, dataDir: join(this.dir, 'ferretdb'), logFile: join(this.dir, 'ferretdb.log') });
  }

  async startTemporal(): Promise<void> {
    this.temporal = await startTemporalDev({ port: this.ports.temporal, dbFile: join(this.dir, 'temporal.db'), logFile: join(this.dir, 'temporal.log') });
  }

  /** SIGKILL: the store dies as in a crash (WAL keeps every committed write). */
  async killStore(): Promise<void> {
    await killChild(this.store?.child, 'SIGKILL');
    await waitFor('store port closed', async () => !(await portOpen(this.ports.store)), 10_000);
  }

  /** SIGTERM then start again on the same port and database file. */
  async restartTemporal(): Promise<void> {
    await this.temporal?.stop();
    await waitFor('Temporal port closed', async () => !(await portOpen(this.ports.temporal)), 10_000);
    await this.startTemporal();
  }

  async startApi(config: Config): Promise<void> {
    this.api = await startApiProcess(config, { ...this.env, LOG_LEVEL: 'warn' });
  }

  async startSecondApi(config: Config): Promise<void> {
    this.api2 = await startApiProcess(config, { ...this.env, LOG_LEVEL: 'warn' });
  }

  /** SIGKILL of the second replica: its in-flight requests are dropped, its leases left to expire. */
  async killSecondApi(): Promise<void> {
    await this.api2?.stop('SIGKILL');
    this.api2 = undefined;
  }

  /** The replicas answering now (the load spreads over them). */
  apiUrls(): string[] {
    return [this.api?.url, this.api2?.url].filter((u): u is string => !!u);
  }

  /** SIGKILL of the Temporal server (an outage until startTemporal). */
  async killTemporal(): Promise<void> {
    await killChild(this.temporal?.child, 'SIGKILL');
    await waitFor('Temporal port closed', async () => !(await portOpen(this.ports.temporal)), 10_000);
  }

  /** A worker process (`tsx worker/main.ts`), ready when it logs that it runs. */
  startWorker(extraEnv: Record<string, string> = {}): WorkerProcess {
    const id = this.nextWorkerId++;
    const log = openSync(join(this.dir, `worker-${id}.log`), 'a');
    // Node itself runs the worker (tsx as a loader, not the tsx CLI, which would run it in a child
    // of its own): a SIGKILL must reach the worker, not a wrapper that leaves it running.
    const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...this.env, LOG_LEVEL: 'info', SERVICE_NAME: `worker-${id}`, ...extraEnv },
      stdio: ['ignore', 'pipe', log],
    });
    closeSync(log);
    const ready = new Promise<void>((resolve, reject) => {
      let seen = '';
      child.stdout!.on('data', (c: Buffer) => {
        seen = (seen + c.toString()).slice(-4096);
        if (seen.includes('worker running')) resolve();
      });
      child.once('exit', (code, signal) => reject(new Error(`worker ${id} exited (${code ?? signal}) before it ran`)));
    });
    ready.catch(() => undefined);
    const w: WorkerProcess = { id, child, ready, startedAt: Date.now(), exited: Promise.resolve('') };
    w.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.workers = this.workers.filter((x) => x !== w);
        // A worker armed with CHAOS_EXIT_AT ends itself with SIGKILL: expected.
        if (signal !== 'SIGKILL' && signal !== 'SIGTERM') this.unexpectedWorkerExits.push(`worker ${id} exited with ${code ?? signal}`);
        resolve(signal ?? String(code));
      }),
    );
    this.workers.push(w);
    return w;
  }

  async killWorker(w: WorkerProcess): Promise<void> {
    await killChild(w.child, 'SIGKILL');
  }

  /** A worker is running (starting one when none is); replaces workers that crashed. */
  async ensureWorker(): Promise<WorkerProcess> {
    const w = this.workers[0] ?? this.startWorker();
    await w.ready;
    return w;
  }

  async stopAll(): Promise<void> {
    for (const w of [...this.workers]) await killChild(w.child, 'SIGTERM', 15_000);
    await this.api2?.stop();
    await this.api?.stop();
    // The API's own log (warnings and errors), for a line of the ledger that does not balance.
    if (this.api) writeFileSync(join(this.dir, 'api.log'), this.api.output());
    await this.temporal?.stop();
    await this.store?.stop();
  }
}

function killChild(child: ChildProcess | undefined, signal: NodeJS.Signals, graceMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill(signal);
  });
}
