import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../core/config';
import { ALL_PERMISSIONS } from '../core/keys/permissions';
import { logger } from '../core/observability/logger';
import { createApiKey } from '../core/keys/apiKeys';
import { createOrganization } from '../core/tenancy/provisioning';
import type { KeysStores } from '../core/keys/store';
import type { TenancyStores } from '../core/tenancy/store';
import { startLocalStack, type LocalStack } from '../scripts/localStack';
import { benchCommand, benchSettings, loadAverage, machineDescription, recordResult, type BenchFigure } from './benchResults';

export interface BenchStack {
  mongodbUri: string;
  temporalAddress: string;
  /** The store process, so its CPU can be read (BENCH_STORE_PID names it when the store is given). */
  storePid: number | undefined;
  /** The Temporal server process when this run started it. */
  temporalPid: number | undefined;
}

/**
 * The store and Temporal a request-path benchmark measures against: MONGODB_URI and
 * TEMPORAL_ADDRESS when both are given, otherwise the local services started for this run (and
 * stopped through `stops`).
 */
export async function startBenchStack(dir: string, database: string, stops: Array<() => unknown>, log?: (message: string) => void): Promise<BenchStack> {
  let stack: LocalStack | undefined;
  let mongodbUri = process.env.MONGODB_URI;
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!mongodbUri || !temporalAddress) {
    const services: LocalStack['services'] = [];
    stops.push(async () => {
      for (const svc of [...services].reverse()) await svc.stop();
    });
    stack = await startLocalStack({ dir, mongodbUri, temporalAddress, services, log });
    mongodbUri ??= `${stack.storeBase}/${database}`;
    temporalAddress = stack.temporalAddress;
  }
  const storePid =
    stack?.services.find((s) => s.name === 'ferretdb')?.child.pid ?? (process.env.BENCH_STORE_PID ? Number(process.env.BENCH_STORE_PID) : undefined);
  const temporalPid = stack?.services.find((s) => s.name === 'temporal')?.child.pid;
  return { mongodbUri, temporalAddress, storePid, temporalPid };
}

/** A new organization with every permission on one API key, as the operator CLI makes it. */
export async function benchOrganization(stores: KeysStores & TenancyStores, name: string, credits: number, audience: string) {
  const org = await createOrganization(stores, name, credits);
  const key = await createApiKey(stores, {
    orgId: org.org_id,
    workspaceId: org.workspace_id,
    applicationId: org.application_id,
    scopes: [...ALL_PERMISSIONS],
    audience,
  });
  return { orgId: org.org_id, key: key.key };
}

export type BenchStops = Array<() => Promise<unknown> | unknown>;

/**
 * The one benchmark harness: `measure` gets a fresh temporary folder and a list of stops it adds
 * to (services, processes), which run last-first however `measure` ends. The figures it returns
 * go to the generated results table (bench/benchResults.ts) with the date, the machine and the
 * load average at the start. The process exits 0, or 1 with the error on stderr.
 */
export function runBench(name: string, measure: (dir: string, stops: BenchStops) => Promise<BenchFigure[] | void>): void {
  logger.level = 'silent';
  const loadAtStart = loadAverage();
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  const dir = mkdtempSync(join(tmpdir(), `bench-${name.replace(/\W+/g, '-')}-`));
  const stops: BenchStops = [() => rmSync(dir, { recursive: true, force: true })];
  measure(dir, stops)
    .finally(async () => {
      for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    })
    .then(
      (figures) => {
        if (figures?.length)
          recordResult({ bench: name, command: benchCommand(), settings: benchSettings(), date, machine: machineDescription(), loadAtStart, figures });
        process.exit(0);
      },
      (err: Error) => {
        process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
        process.exit(1);
      },
    );
}

/** The config of a benchmark's processes on the stack it started (the environment's settings beside it). */
export function benchConfig(stack: Pick<BenchStack, 'mongodbUri' | 'temporalAddress'>): Config {
  return loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    MONGODB_URI: stack.mongodbUri,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    SECRETS_ENCRYPTION_KEY: process.env.SECRETS_ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
  });
}
