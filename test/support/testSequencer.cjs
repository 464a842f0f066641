const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Seconds the slowest files take on a 2-CPU machine. jest starts the files it knows to be slow
 * first, so that its workers finish together; it knows that from its cache of the last
 * run, which a fresh clone has not, and otherwise goes by file size, which would start several
 * of these short files last and leave one worker running them alone.
 */
const TYPICAL_SECONDS = {
  // Installs Schemathesis on a fresh clone (about 20 s more) before it fuzzes.
  'test/integration/openApiContract.test.ts': 75,
  'test/e2e/consolePages.test.ts': 61,
  'test/e2e/devStart.test.ts': 55,
  'test/e2e/consoleWalkthrough.test.ts': 49,
  'test/integration/jobs.test.ts': 48,
  'test/e2e/accountPages.test.ts': 44,
  'test/integration/store.test.ts': 30,
  'test/e2e/signInClients.test.ts': 29,
  'test/integration/mcp.test.ts': 26,
  'test/integration/webhookDeliveries.test.ts': 23,
  'test/integration/rateLimits.test.ts': 21,
  'test/integration/paidOperations.test.ts': 20,
  'test/integration/console.test.ts': 20,
  'test/workflows/workflows.test.ts': 18,
  'test/integration/clients.test.ts': 18,
  'test/integration/oauth.test.ts': 18,
  'test/integration/limits.test.ts': 17,
  'test/integration/operatorCli.test.ts': 15,
  'test/e2e/webhooks.test.ts': 14,
  'test/integration/requests.test.ts': 12,
  'test/integration/accounts.test.ts': 11,
  'test/integration/temporalTls.test.ts': 9,
  'test/integration/jobsConcurrencyCap.test.ts': 8,
  'test/integration/auditCompleteness.test.ts': 8,
  'test/unit/talentSearch.test.ts': 7,
  'test/integration/consoleSudo.test.ts': 6,
  'test/integration/referenceSamples.test.ts': 5,
  'test/e2e/referencePage.test.ts': 5,
  'test/unit/requestRules.test.ts': 5,
  'test/unit/openApiDocument.test.ts': 5,
};

/** jest's own order (failed first, then the longest), with the table standing in for a missing cache entry. */
class SlowFilesFirst extends Sequencer {
  time(test) {
    const measured = super.time(test);
    if (measured !== undefined) return measured;
    const seconds = TYPICAL_SECONDS[relative(test.context.config.rootDir, test.path).split('\\').join('/')];
    // Every file gets a time, or jest would run the ones without one first; an unlisted file is
    // taken to be short, longer the bigger it is (jest's own guess without a cache).
    return seconds !== undefined ? seconds * 1000 : Math.min(4000, (test.context.hasteFS.getSize(test.path) ?? 0) / 5);
  }
}

module.exports = SlowFilesFirst;
