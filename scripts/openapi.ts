import { buildOpenApi } from '../api/openapi';
import { oauthOpenApiPaths } from '../api/oauth/openApiPaths';
import { v1Routes } from '../api/routes/index';

/** `npm run --silent openapi > openapi.json`: the API reference, from the route schemas. */
const baseUrl = process.env.BASE_URL || 'http://127.0.0.1:8080';
const authUrl = process.env.AUTH_URL || baseUrl;
process.stdout.write(JSON.stringify(buildOpenApi(v1Routes, { baseUrl, extraPaths: oauthOpenApiPaths(authUrl) }), null, 2) + '\n');
