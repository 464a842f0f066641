import { StoreAdmission } from '../../core/limits/requestAdmission';
import { connectStore } from '../../core/store/connection';

/**
 * A separate process that takes in-flight leases for an organization and then hangs, like an
 * API process stuck mid-request; the limits test kills it with SIGKILL to show the leases are
 * reclaimed after their TTL. Env: MONGODB_URI, ORG_ID, COUNT, TTL_MS, MAX_CONCURRENCY.
 */
async function main() {
  await connectStore(process.env.MONGODB_URI!);
  const admission = new StoreAdmission();
  let held = 0;
  for (let i = 0; i < Number(process.env.COUNT); i++) {
    const r = await admission.admitRequest({
      orgId: process.env.ORG_ID!,
      requestsPerSecond: 1000,
      maxConcurrency: Number(process.env.MAX_CONCURRENCY),
      leaseTtlMs: Number(process.env.TTL_MS),
    });
    if (r.admitted) held++;
  }
  process.stdout.write(JSON.stringify({ held }) + '\n');
  setInterval(() => undefined, 60_000);
}

main().catch((err) => {
  process.stderr.write(String(err) + '\n');
  process.exit(1);
});
