import type { Config } from '../../core/config';
import { oauthOpenApiPaths } from '../oauth/openApiPaths';
import { buildOpenApi } from '../openapi';
import { healthOpenApiPaths } from '../routes/health';
import { v1Routes } from '../routes/index';
import { firstCallGuide } from './firstCallGuide';
import { OPERATION_EXAMPLES } from './operationExamples';
import { referenceOpenApiPaths } from './referencePage';
import { toolServerOpenApiPaths } from './toolServerPaths';

type DocumentSettings = Pick<Config, 'baseUrl' | 'authUrl' | 'mcpUrl' | 'metricsEnabled' | 'metricsToken'>;

/** Fixed public URLs for a document whose servers do not matter (the generated client's types, tests of the document's text). */
export const PLACEHOLDER_SETTINGS: DocumentSettings = {
  baseUrl: 'https://api.example.com',
  authUrl: 'https://auth.example.com',
  mcpUrl: 'https://mcp.example.com',
  metricsEnabled: true,
  metricsToken: 'set',
};

/** The whole public surface in one OpenAPI document: /v1, OAuth, the tool server, probes, the reference itself and the webhook events. */
export function publicOpenApi(config: DocumentSettings): Record<string, unknown> {
  return buildOpenApi(v1Routes, {
    baseUrl: config.baseUrl,
    description: firstCallGuide(config.baseUrl),
    examples: OPERATION_EXAMPLES,
    extraPaths: {
      ...oauthOpenApiPaths(config.authUrl),
      ...toolServerOpenApiPaths(config.mcpUrl, config.authUrl),
      ...healthOpenApiPaths({ enabled: config.metricsEnabled, token: config.metricsToken }),
      ...referenceOpenApiPaths(),
    },
  });
}
