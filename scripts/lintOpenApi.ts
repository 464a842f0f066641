import { createConfig, lintFromString } from '@redocly/openapi-core';
import { publicOpenApi } from '../api/reference/publicDocument';

/**
 * `npm run openapi:lint`: lints the public OpenAPI document with Redocly's recommended rules
 * and prints every problem as one JSON array on stdout (exit 1 when there is any). The test
 * (test/unit/openApiDocument.test.ts) runs it as a child process because the linter is an
 * ES module the test runner cannot load.
 */
async function main(): Promise<void> {
  const document = publicOpenApi({
    baseUrl: 'https://api.talent.test',
    authUrl: 'https://auth.talent.test',
    mcpUrl: 'https://mcp.talent.test',
    metricsEnabled: true,
    metricsToken: 'metrics-token',
  });
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(document, null, 2), absoluteRef: 'openapi.json', config });
  const report = problems.map((p) => ({ rule: p.ruleId, severity: p.severity, message: p.message, where: p.location.map((l) => l.pointer) }));
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  process.exitCode = report.length > 0 ? 1 : 0;
}

void main();
