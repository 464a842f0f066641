import { loadConfigOrExit } from '../core/config';
import { closeDeps, openDeps, type Deps } from '../core/deps';
import { loadSearchIndex } from '../core/talent/searchIndex';
import { DEFAULT_PEOPLE_SEED, seedPeople } from './seeding/seedPeople';
import { parseArgs } from './admin/command';
import { applyDevEnvDefaults } from './devEnv';
import { createLogger } from '../core/observability/logger';

/**
 * `npm run seed -- --people N [--seed S]`: generates N synthetic people (and their provider
 * contacts) into MONGODB_URI, then stores the search index snapshot of them. Deterministic and
 * resumable: the same N and seed twice adds nothing; a larger N adds the difference.
 *
 * `main` is the composition root: it loads the config, opens the store and hands the
 * dependencies to `seed`, closing them when it is done.
 */
async function main(): Promise<number> {
  const { flags } = parseArgs(process.argv.slice(2));
  const count = Number(flags.people ?? 2000);
  if (!Number.isInteger(count) || count < 0) {
    process.stderr.write('usage: npm run seed -- --people N [--seed S]\n');
    return 2;
  }
  const seedName = typeof flags.seed === 'string' ? flags.seed : DEFAULT_PEOPLE_SEED;
  applyDevEnvDefaults();
  const config = loadConfigOrExit();
  const deps = await openDeps(config, { logger: createLogger({ level: config.logLevel }) });
  try {
    return await seed(deps, count, seedName);
  } finally {
    await closeDeps(deps);
  }
}

/** Seeds `count` people of `seedName` into the store `deps` opened, then the search index snapshot of them. */
async function seed(
  { now, logger, stores, purposeKeys }: Pick<Deps, 'now' | 'logger' | 'stores' | 'purposeKeys'>,
  count: number,
  seedName: string,
): Promise<number> {
  const started = now();
  const tty = process.stderr.isTTY;
  let lastLine = 0;
  const { inserted } = await seedPeople(stores, {
    // Person ids are keyed by SECRETS_ENCRYPTION_KEY.
    purposeKeys,
    count,
    seed: seedName,
    onProgress: (p) => {
      const at = now();
      if (!tty && at - lastLine < 2000 && p.inserted < p.total) return;
      lastLine = at;
      const pct = ((p.inserted / p.total) * 100).toFixed(1);
      const line = `seeded ${p.inserted.toLocaleString('en')} / ${p.total.toLocaleString('en')} people (${pct}%), ${p.ratePerSecond.toLocaleString('en')} people/s`;
      process.stderr.write(tty ? `\r${line}   ` : `${line}\n`);
    },
  });
  if (tty) process.stderr.write('\n');
  // The search index snapshot of the seeded people, so an API starts from it instead of
  // reading every person (minutes at a million on the local store).
  const indexStarted = now();
  process.stderr.write('preparing the search index snapshot …\n');
  const idx = await loadSearchIndex(stores, logger, now, (loaded) =>
    process.stderr.write(`${tty ? '\r' : ''}  indexed ${loaded.toLocaleString('en')} people${tty ? '   ' : '\n'}`),
  );
  process.stderr.write(
    `${tty ? '\n' : ''}search index snapshot of ${idx.size.toLocaleString('en')} people ready in ${((now() - indexStarted) / 1000).toFixed(1)} s\n`,
  );
  const seconds = (now() - started) / 1000;
  process.stdout.write(
    `${JSON.stringify({ inserted, people: await stores.talent.peopleCount(), seed: seedName, seconds: Math.round(seconds * 10) / 10, people_per_second: Math.round(inserted / Math.max(seconds, 0.001)) })}\n`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  },
);
