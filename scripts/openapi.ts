import { publicOpenApi } from '../api/reference/publicDocument';

/** `npm run --silent openapi > openapi.json`: the API reference, from the route schemas. */
const baseUrl = process.env.BASE_URL || 'http://127.0.0.1:8080';
const document = publicOpenApi({
  baseUrl,
  authUrl: process.env.AUTH_URL || baseUrl,
  mcpUrl: process.env.MCP_URL || baseUrl,
  metricsEnabled: true,
  metricsToken: process.env.METRICS_TOKEN || 'set',
});
process.stdout.write(JSON.stringify(document, null, 2) + '\n');
