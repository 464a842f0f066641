const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Seconds the slowest files take on a 2-CPU machine. jest starts the files it knows to be slow
 * first, so that its workers finish together; it knows that from its cache of the last
 * run, which a fresh clone has not, and otherwise goes by file size, which would start several
 * of these short files last and leave one worker running them alone.
 */
const TYPICAL_SECONDS = {
  'test/e2e/devStart.test.ts': 84,
  'test/e2e/consolePages.test.ts': 80,
  'test/e2e/accountPages.test.ts': 60,
  'test/integration/openApiContract.test.ts': 47,
  'test/e2e/consoleWalkthrough.test.ts': 70,
  'test/e2e/signInClients.test.ts': 57,
  'test/integration/operatorCli.test.ts': 22,
  'test/integration/clients.test.ts': 15,
  'test/integration/limits.test.ts': 21,
  'test/integration/mcp.test.ts': 40,
  'test/integration/webhookDeliveries.test.ts': 24,
  'test/integration/store.test.ts': 45,
  'test/integration/oauth.test.ts': 17,
  'test/integration/jobs.test.ts': 60,
  'test/integration/accounts.test.ts': 12,
  'test/integration/paidOperations.test.ts': 22,
  'test/integration/requests.test.ts': 15,
  'test/integration/console.test.ts': 22,
  'test/integration/rateLimits.test.ts': 20,
  'test/e2e/webhooks.test.ts': 16,
  'test/integration/auditCompleteness.test.ts': 9,
  'test/integration/temporalTls.test.ts': 9,
  'test/unit/talentSearch.test.ts': 7,
  'test/integration/jobsConcurrencyCap.test.ts': 11,
  'test/e2e/referencePage.test.ts': 8,
  'test/integration/consoleSudo.test.ts': 6,
  'test/integration/referenceSamples.test.ts': 8,
  'test/unit/openApiDocument.test.ts': 5,
  'test/workflows/workflows.test.ts': 25,
  'test/unit/limitsRules.test.ts': 1,
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
