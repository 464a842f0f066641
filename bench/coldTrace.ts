import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchConfig, benchOrganization, startBenchStack, type BenchStops } from './benchStack';
import { runLoad } from './loadRun';
import { startApi } from '../api/server';
import { sha256Hex } from '../core/crypto/hash';
import { createLogger } from '../core/observability/logger';
import mongoose from 'mongoose';

// Every store connection of this process monitors its commands, which the trace times.
const openUri = mongoose.Connection.prototype.openUri;
mongoose.Connection.prototype.openUri = function (this: mongoose.Connection, uri: string, options?: mongoose.ConnectOptions) {
  return openUri.call(this, uri, { ...options, monitorCommands: true });
} as typeof openUri;

/**
 * A diagnostic of the cold scenario (bench/api.ts) from inside: the API in this process, 50 new
 * organizations, the generator in its own process, and for the first seconds each store command
 * (name, collection, start, duration), each request's phases (key read, limit settings read, slot
 * inserts, by wrapping the app's own key reads, settings reads and admission), the connections
 * the generator opened, and the API's CPU per answer, slice by slice and until the Nth answer.
 * Counts and CPU figures hold on a loaded machine; latencies do not.
 *
 *   npx tsx bench/coldTrace.ts   (TRACE_WARM=0 starts without api/warmStart.ts; TRACE_RATE, TRACE_SECONDS)
 *
 * Prints only; it records nothing in the results table.
 */
const ORGS = 50;
const RATE = Number(process.env.TRACE_RATE ?? 1000);
const SECONDS = Number(process.env.TRACE_SECONDS ?? 3);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cold-trace-'));
  const stops: BenchStops = [() => rmSync(dir, { recursive: true, force: true })];
  try {
    const stack = await startBenchStack(dir, 'cold_trace', stops);
    const config = benchConfig(stack);
    const startedAt = performance.now();
    const startCpu = process.cpuUsage();
    const api = await startApi(config, { logger: createLogger({ level: 'warn' }) }, { warmStart: process.env.TRACE_WARM !== '0' });
    const sc = process.cpuUsage(startCpu);
    const startLine = `startApi (warm start included): ${(performance.now() - startedAt).toFixed(0)} ms, CPU ${((sc.user + sc.system) / 1000).toFixed(0)} ms`;
    stops.push(() => api.close());
    const orgs: { orgId: string; key: string }[] = [];
    for (let i = 0; i < ORGS; i++) orgs.push(await benchOrganization(api.deps.stores, `trace ${Date.now()} ${i}`, 0, config.apiAudience));
    await new Promise((r) => setTimeout(r, 1500));

    let t0 = 0;
    const rel = () => performance.now() - t0;
    const cmds: { at: number; ms: number; name: string; coll: string; n: number }[] = [];
    const started = new Map<number, { at: number; name: string; coll: string; n: number }>();
    const client = api.deps.store.connection.getClient();
    client.on('commandStarted', (e) => {
      const c = e.command as Record<string, unknown>;
      const coll = String(c[e.commandName]);
      let n = 0;
      if (Array.isArray(c.documents)) n = c.documents.length;
      else if (Array.isArray(c.deletes)) n = c.deletes.length;
      else if (Array.isArray(c.updates)) n = c.updates.length;
      else if (c.filter) n = JSON.stringify(c.filter).length;
      started.set(e.requestId, { at: rel(), name: e.commandName, coll, n });
    });
    const done = (e: { requestId: number }) => {
      const s = started.get(e.requestId);
      if (!s) return;
      started.delete(e.requestId);
      cmds.push({ ...s, ms: rel() - s.at });
    };
    client.on('commandSucceeded', done);
    client.on('commandFailed', done);

    // A phase is credited to the organization's latest request: its first requests come one at a
    // time, which is what this is for.
    type Phase = { at: number; ms: number };
    const reqs: { at: number; ms: number; key: string; phases: Record<string, Phase> }[] = [];
    const current = new Map<string, Record<string, Phase>>();
    const timed =
      <A extends unknown[], R>(name: string, keyOf: (...a: A) => string, f: (...a: A) => Promise<R>) =>
      async (...a: A): Promise<R> => {
        const at = rel();
        try {
          return await f(...a);
        } finally {
          const k = keyOf(...a);
          const p = current.get(k);
          if (p && !p[name]) p[name] = { at, ms: rel() - at };
        }
      };
    const d = api.deps as unknown as Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>>;
    const keyOfHash = new Map<string, string>();
    for (const o of orgs) keyOfHash.set(sha256Hex(o.key), o.orgId);
    const kr = d.keyReads.byHash.bind(d.keyReads);
    d.keyReads.byHash = timed('key', (h) => keyOfHash.get(h as string) ?? '', kr);
    const ls = d.limitSettings.get.bind(d.limitSettings);
    d.limitSettings.get = timed('settings', (_s, org) => org as string, ls);
    // Which organizations' keys and settings were asked of the store, and when: a first request
    // that found its key or settings without a store read took one serial round trip fewer.
    const storeReadAt = new Map<string, number>();
    const noteRead = (what: string, ids: readonly string[]) => {
      for (const id of ids) if (!storeReadAt.has(`${what}:${id}`)) storeReadAt.set(`${what}:${id}`, rel());
    };
    const keysStore = api.deps.stores.keys;
    const keysByHashes = keysStore.keysByHashes.bind(keysStore);
    keysStore.keysByHashes = (hashes) => (
      noteRead(
        'key',
        hashes.map((h) => keyOfHash.get(h) ?? ''),
      ),
      keysByHashes(hashes)
    );
    const limitsStore = api.deps.stores.limits;
    const limitSettingsOf = limitsStore.limitSettingsOf.bind(limitsStore);
    limitsStore.limitSettingsOf = (orgIds) => (noteRead('settings', orgIds), limitSettingsOf(orgIds));
    const ar = d.admission.admitRequest.bind(d.admission);
    d.admission.admitRequest = timed('slots', (i) => (i as { orgId: string }).orgId, ar);
    let cpuAtStart = process.cpuUsage();
    const cpuAtAnswer: Record<number, number> = {};
    const orgOfKey = new Map(orgs.map((o) => [`Bearer ${o.key}`, o.orgId]));
    const connections: number[] = [];
    api.server.on('connection', () => t0 && connections.push(rel()));
    api.server.prependListener('request', (req, res) => {
      if (!t0) {
        t0 = performance.now();
        lastCpu = cpuAtStart = process.cpuUsage();
      }
      const at = rel();
      const org = orgOfKey.get(req.headers.authorization ?? '') ?? '';
      const phases: Record<string, Phase> = {};
      current.set(org, phases);
      res.once('finish', () => {
        reqs.push({ at, ms: rel() - at, key: org, phases });
        if ([50, 100, 200, 300, 1000].includes(reqs.length)) {
          const c = process.cpuUsage(cpuAtStart);
          cpuAtAnswer[reqs.length] = (c.user + c.system) / 1000;
        }
      });
    });

    const lags: { at: number; ms: number }[] = [];
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      if (t0 && now - last > 15) lags.push({ at: last - t0, ms: now - last });
      last = now;
    }, 5);
    const cpuSlices: { at: number; cpuMs: number; done: number }[] = [];
    let lastCpu = process.cpuUsage();
    let lastDone = 0;
    const cpuTicker = setInterval(() => {
      if (!t0) return;
      const c = process.cpuUsage(lastCpu);
      lastCpu = process.cpuUsage();
      cpuSlices.push({ at: rel(), cpuMs: (c.user + c.system) / 1000, done: reqs.length - lastDone });
      lastDone = reqs.length;
    }, 250);
    const load = runLoad(
      {
        mode: 'open',
        targets: orgs.map((o) => ({ url: `${api.url}/v1/whoami`, headers: { authorization: `Bearer ${o.key}` } })),
        ratePerSecond: RATE,
        seconds: SECONDS,
        segmentSeconds: 1,
      },
      () => undefined,
    );
    const result = await load;
    clearInterval(ticker);
    const out: string[] = [startLine];
    out.push(
      `connections opened: first 250 ms ${connections.filter((c) => c < 250).length}, first second ${connections.filter((c) => c < 1000).length}, all ${connections.length}`,
    );
    out.push(
      `event-loop stalls over 15 ms: ${lags
        .filter((l) => l.at < 2000)
        .map((l) => `@${l.at.toFixed(0)} ${l.ms.toFixed(0)}`)
        .join(', ')}`,
    );
    clearInterval(cpuTicker);
    out.push(
      `API CPU until the 50th / 100th / 200th / 300th / 1000th answer: ${[50, 100, 200, 300, 1000].map((n) => cpuAtAnswer[n]?.toFixed(0) ?? 'n/a').join(' / ')} ms`,
    );
    out.push(`API CPU per request by 250 ms slice: ${cpuSlices.map((c) => `${(c.cpuMs / (c.done || 1)).toFixed(2)}ms/${c.done}`).join(' ')}`);
    const firstS = cpuSlices.filter((c) => c.at <= 1001);
    out.push(`API CPU in the first second: ${firstS.reduce((s, c) => s + c.cpuMs, 0).toFixed(0)} ms for ${firstS.reduce((s, c) => s + c.done, 0)} requests`);
    out.push(`segments ${JSON.stringify(result.segments?.map((s) => [s.p50Ms, s.p99Ms, s.maxMs, s.non2xx]))} statuses ${JSON.stringify(result.statuses)}`);
    for (const w of [100, 250, 500, 1000, 2000]) {
      const first = reqs.filter((r) => r.at < w);
      const lat = first.map((r) => r.ms).sort((a, b) => a - b);
      out.push(
        `requests arriving before ${w} ms: ${lat.length}, server p50 ${lat[Math.floor(lat.length / 2)]?.toFixed(1)} p99 ${lat[Math.floor(lat.length * 0.99)]?.toFixed(1)} max ${lat.at(-1)?.toFixed(1)}`,
      );
    }
    for (let b = 0; b < 1000; b += 50) {
      const inB = reqs.filter((r) => r.at >= b && r.at < b + 50).map((r) => r.ms);
      const c = cmds.filter((x) => x.at >= b && x.at < b + 50);
      const byName: Record<string, number> = {};
      for (const x of c) byName[`${x.name}:${x.coll}`] = (byName[`${x.name}:${x.coll}`] ?? 0) + 1;
      out.push(
        `${String(b).padStart(4)}-${b + 50} ms: ${inB.length} req, max ${Math.max(0, ...inB).toFixed(1)} ms, mean ${(inB.reduce((s, x) => s + x, 0) / (inB.length || 1)).toFixed(1)}; cmds ${JSON.stringify(byName)} mean cmd ${(c.reduce((s, x) => s + x.ms, 0) / (c.length || 1)).toFixed(1)} ms`,
      );
    }
    const firstOfOrg = new Map<string, (typeof reqs)[number]>();
    for (const r of [...reqs].sort((a, b) => a.at - b.at)) if (r.key && !firstOfOrg.has(r.key)) firstOfOrg.set(r.key, r);
    const readBefore = (what: string, r: (typeof reqs)[number]) => (storeReadAt.get(`${what}:${r.key}`) ?? Infinity) <= r.at + r.ms;
    const firsts = [...firstOfOrg.values()];
    const keyTrips = firsts.filter((r) => readBefore('key', r)).length;
    const settingsTrips = firsts.filter((r) => readBefore('settings', r)).length;
    // Waited in the settings phase without a settings find: the directory's check of the change mark.
    const markWaits = firsts.filter((r) => !readBefore('settings', r) && (r.phases.settings?.ms ?? 0) >= 0.5).length;
    out.push(
      `first request of each new organization (${firsts.length}): key read from the store ${keyTrips}, settings read from the store ${settingsTrips}, waited for the settings directory's check ${markWaits}, slot inserts ${firsts.length}: ${((keyTrips + settingsTrips + markWaits + firsts.length) / (firsts.length || 1)).toFixed(2)} serial round trips on average`,
    );
    out.push('slowest requests of the first second (arrival, total, phases at/ms):');
    for (const r of reqs
      .filter((r) => r.at < 1000)
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 25))
      out.push(
        `  at ${r.at.toFixed(1)} total ${r.ms.toFixed(1)} ${Object.entries(r.phases)
          .map(([k, p]) => `${k} @${p.at.toFixed(1)} ${p.ms.toFixed(1)}`)
          .join(', ')}`,
      );
    const firstSec = cmds.filter((x) => x.at < 1000);
    const agg: Record<string, { n: number; ms: number; max: number }> = {};
    for (const x of firstSec) {
      const a = (agg[`${x.name}:${x.coll}`] ??= { n: 0, ms: 0, max: 0 });
      a.n++;
      a.ms += x.ms;
      a.max = Math.max(a.max, x.ms);
    }
    out.push(`commands in the first second: ${JSON.stringify(agg)}`);
    out.push('commands before 300 ms:');
    for (const x of cmds.filter((x) => x.at < 300).sort((a, b) => a.at - b.at))
      out.push(`  @${x.at.toFixed(1)} ${x.ms.toFixed(1)} ms ${x.name} ${x.coll} n=${x.n}`);
    const text = out.join('\n');
    process.stdout.write(text + '\n');
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  },
);
