import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { OPEN_WEB_SOURCE_ID, setSourceEnabled } from '../../core/talent/sources';
import { OPERATION_EXAMPLES } from '../../api/reference/operationExamples';
import { IDEMPOTENCY_KEY_PATTERN } from '../../core/idempotency/idempotency';
import { setOrganizationRate } from '../../core/limits/limitSettings';
import { createClient } from '../../core/oauth/clients';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { fileStores } from '../support/testStore';
import { installSchemathesis } from '../../scripts/localServices';

/**
 * The document is the validator: Schemathesis reads `/openapi.json` from the running API and
 * fuzzes every operation with what the document says is valid and invalid, including the
 * stateful phase that follows the document's links (create, then read what was created). Any
 * disagreement between what the document says and what the service does is a failure.
 *
 * The key has every permission and enough credits that paid operations answer what they
 * document rather than 402. Operations of the OAuth server and the sign-in pages are fuzzed
 * too: they need no key, and every answer they give (refusals included) is documented.
 */
let srv: TestApi;
let worker: TestWorker;
let tenant: TestTenant;
let accessToken: string;
let fuzzer: Promise<string>;

beforeAll(async () => {
  // On a fresh clone the global set-up has started installing it (once, under .local/): this file
  // waits for it, or installs it if that failed, while it sets up; nothing else waits for it.
  fuzzer = installSchemathesis((m) => process.stderr.write(`[contract test] ${m}\n`));
  fuzzer.catch(() => undefined);
  srv = await startTestApi(OAUTH_ENV);
  // Jobs run to completion, so the two-jobs-at-once cap does not answer every later create.
  worker = await startTestWorker(srv.config);
  tenant = await createTenant({ credits: 10_000_000 });
  // The organization's own rate is not what is under test; each operation's rate still applies.
  await setOrganizationRate(fileStores(), srv.config, tenant.orgId, { requestsPerSecond: 1000, maxConcurrency: 100 }, Date.now);
  // The people the reference's examples name exist, so the examples (and what the stateful
  // phase builds on their answers: jobs, results, unlocks) reach the service's logic.
  const exampleJob = OPERATION_EXAMPLES['contact_retrieval_jobs.create'].request as { person_ids: string[] };
  await insertTestPeople(srv.deps.stores, exampleJob.person_ids);
  // The tool server takes an OAuth access token, not a key: a machine client's, for the same organization.
  const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 100_000 }, new Date());
  accessToken = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
  // Every source of the catalogue the document lists is usable by this organization.
  await setSourceEnabled(fileStores(), srv.config, tenant.orgId, OPEN_WEB_SOURCE_ID, true);
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 50 });
});
afterAll(async () => {
  await worker?.stop();
  await srv?.close();
});

interface Run {
  code: number | null;
  output: string;
}

async function schemathesis(args: string[], env: Record<string, string>): Promise<Run> {
  const bin = await fuzzer;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      // Its example cache (.schemathesis/) lands in the working directory: a scratch one.
      cwd: mkdtempSync(join(tmpdir(), 'schemathesis-run-')),
      env: {
        ...env,
        PATH: process.env.PATH,
        HOME: mkdtempSync(join(tmpdir(), 'schemathesis-home-')),
        NO_COLOR: '1',
        PYTHONUNBUFFERED: '1',
        // No bytecode cache written into the checkout.
        PYTHONDONTWRITEBYTECODE: '1',
        // Its hooks (test/support/schemathesis/talent_hooks.py): fresh idempotency keys per case.
        PYTHONPATH: join(__dirname, '..', 'support', 'schemathesis'),
        SCHEMATHESIS_HOOKS: 'talent_hooks',
        TALENT_IDEMPOTENCY_KEY_PATTERN: IDEMPOTENCY_KEY_PATTERN,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

test('Schemathesis finds no disagreement between /openapi.json and the service', async () => {
  const reportDir = mkdtempSync(join(tmpdir(), 'schemathesis-report-'));
  const run = await schemathesis(
    [
      '--config-file',
      join(__dirname, '..', 'support', 'schemathesis.toml'),
      'run',
      `${srv.url}/openapi.json`,
      '--url',
      srv.url,
      '--checks',
      'all',
      // GET /v1/contact-retrieval-jobs/{id} also matches /v1/contact-retrieval-jobs/batch (the
      // id "batch", answered 404), so OPTIONS there allows GET besides the documented POST; the
      // checks that run are one list for the whole run, so this one cannot be left out for one path.
      '--exclude-checks',
      'allow_header_conformance',
      '--phases',
      'examples,coverage,fuzzing,stateful',
      // Cases per operation: test/support/schemathesis.toml, unless set here for every phase.
      ...(process.env.SCHEMATHESIS_MAX_EXAMPLES ? ['--max-examples', process.env.SCHEMATHESIS_MAX_EXAMPLES] : []),
      '--seed',
      process.env.SCHEMATHESIS_SEED ?? '20261125',
      '--workers',
      '2',
      '--no-shrink',
      '--generation-database',
      'none',
      '--report-dir',
      reportDir,
      '--no-color',
      '--output-truncate',
      'false',
    ],
    { TALENT_API_KEY: tenant.key, TALENT_ACCESS_TOKEN: accessToken },
  );
  if (process.env.SCHEMATHESIS_OUTPUT) writeFileSync(process.env.SCHEMATHESIS_OUTPUT, run.output);
  // Its whole report is the message when it fails: every failure with the request that reproduces it.
  expect(run.code === 0 ? 'no failure' : run.output).toBe('no failure');
}, 300_000);
