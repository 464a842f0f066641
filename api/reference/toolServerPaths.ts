import { PROTECTED_RESOURCE_METADATA_PATH, PROTECTED_RESOURCE_METADATA_ROOT_PATH } from '../oauth/discovery';
import { OAUTH_ERROR_SCHEMA } from '../oauth/openApiPaths';
import { TOOLS_PATH } from '../mcp/toolServer';
import { objectSchema } from './objectSchema';

/**
 * The MCP tool server and its RFC 9728 resource metadata in the API reference. Both live at
 * MCP_URL; the tool server speaks JSON-RPC (MCP Streamable HTTP), so its body is described as
 * a JSON-RPC message and its tools are listed by `tools/list`, not here.
 */
/** The SDK reads integers (ids, error codes) only within the safe-integer range: here that is the real bound. */
const sdkInteger = { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
const requestId = { anyOf: [{ type: 'string' }, sdkInteger], description: 'a string, or an integer JavaScript holds exactly' };
const rpcError = objectSchema(['code', 'message'], { code: sdkInteger, message: { type: 'string' }, data: {} });
/** `_meta` of params and results: what MCP defines there; anything else is kept. */
const meta = {
  type: 'object',
  properties: {
    progressToken: { anyOf: [{ type: 'string' }, sdkInteger] },
    'io.modelcontextprotocol/related-task': objectSchema(['taskId'], { taskId: { type: 'string' } }),
  },
};
const params = { type: 'object', properties: { _meta: meta } };
/**
 * What a client may POST: a request (answered 200 with its response), or a notification or a
 * response (accepted, 202, no body). JSON-RPC's own rules, as the MCP SDK applies them: ids are
 * strings or integers, params and results are objects, and no other member is allowed.
 */
const clientMessage = {
  anyOf: [
    {
      title: 'Request',
      type: 'object',
      required: ['jsonrpc', 'id', 'method'],
      additionalProperties: false,
      properties: { jsonrpc: { const: '2.0' }, id: requestId, method: { type: 'string' }, params },
    },
    {
      title: 'Notification',
      type: 'object',
      required: ['jsonrpc', 'method'],
      additionalProperties: false,
      properties: { jsonrpc: { const: '2.0' }, method: { type: 'string' }, params },
    },
    {
      title: 'Response',
      type: 'object',
      required: ['jsonrpc', 'id', 'result'],
      additionalProperties: false,
      properties: { jsonrpc: { const: '2.0' }, id: requestId, result: { type: 'object', properties: { _meta: meta } } },
    },
    {
      title: 'Error response',
      type: 'object',
      required: ['jsonrpc', 'error'],
      additionalProperties: false,
      properties: { jsonrpc: { const: '2.0' }, id: requestId, error: rpcError },
    },
  ],
};
/** What the server answers: the response to a request, or an error naming the request's id when it had one. */
const serverMessage = objectSchema(['jsonrpc'], {
  jsonrpc: { const: '2.0' },
  id: { type: ['string', 'number', 'null'], description: "the request's id as it was sent; null when it could not be read" },
  result: { type: 'object' },
  error: rpcError,
});
const challenge = { 'WWW-Authenticate': { description: 'Bearer challenge naming the resource metadata URL (RFC 9728)', schema: { type: 'string' } } };

function resourceMetadataPath(
  common: Record<string, unknown>,
  urls: { mcpUrl: string; authUrl: string },
  operationId: string,
  summary: string,
): Record<string, unknown> {
  const { mcpUrl, authUrl } = urls;
  const metadata = objectSchema(['resource', 'authorization_servers'], {
    resource: { type: 'string' },
    authorization_servers: { type: 'array', items: { type: 'string' } },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    bearer_methods_supported: { type: 'array', items: { type: 'string' } },
    resource_signing_alg_values_supported: { type: 'array', items: { type: 'string' } },
    resource_name: { type: 'string' },
  });
  return {
    get: {
      ...common,
      security: [],
      operationId,
      summary,
      responses: {
        200: {
          description: 'Metadata: the resource, its authorization server, scopes and bearer methods',
          content: {
            'application/json': {
              schema: metadata,
              example: {
                resource: `${mcpUrl}/tools`,
                authorization_servers: [authUrl],
                scopes_supported: ['mcp:tools'],
                bearer_methods_supported: ['header'],
                resource_signing_alg_values_supported: ['ES256'],
                resource_name: 'Talent platform tool server (MCP)',
              },
            },
          },
        },
        403: { $ref: '#/components/responses/OriginNotAllowed' },
        '4XX': { $ref: '#/components/responses/RequestRefused' },
      },
    },
  };
}

export function toolServerOpenApiPaths(mcpUrl: string, authUrl = mcpUrl): Record<string, unknown> {
  const common = { tags: ['Tool server (MCP)'], servers: [{ url: mcpUrl }] };
  return {
    [PROTECTED_RESOURCE_METADATA_PATH]: resourceMetadataPath(
      common,
      { mcpUrl, authUrl },
      'toolServerResourceMetadata',
      'Protected resource metadata of the tool server (RFC 9728)',
    ),
    [PROTECTED_RESOURCE_METADATA_ROOT_PATH]: resourceMetadataPath(
      common,
      { mcpUrl, authUrl },
      'toolServerResourceMetadataRoot',
      'The same resource metadata at the host root, for clients that look there first',
    ),
    [TOOLS_PATH]: {
      post: {
        ...common,
        security: [{ oauthAccessToken: [] }],
        operationId: 'toolServerMessage',
        summary: 'MCP tool server: one JSON-RPC message per POST (Streamable HTTP, stateless)',
        description:
          'Needs an access token from the token endpoint for the resource `{MCP_URL}/tools` with scope `mcp:tools`. ' +
          'Call `tools/list` for the tools this token may use. GET and DELETE answer 405: the server keeps no sessions. ' +
          'Send `Accept: application/json, text/event-stream` (MCP Streamable HTTP); without both, 406.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: clientMessage,
              example: {
                jsonrpc: '2.0',
                id: 7,
                method: 'tools/call',
                params: { name: 'search_candidates', arguments: { query: 'backend engineer payments', page_size: 5 } },
              },
            },
          },
        },
        responses: {
          202: { description: 'A notification or a response was accepted (no body)' },
          200: {
            description: 'The JSON-RPC response',
            content: {
              'application/json': {
                schema: serverMessage,
                example: {
                  jsonrpc: '2.0',
                  id: 7,
                  result: {
                    content: [{ type: 'text', text: '{"search_id":"srch_4Wm9Kq2Xb7Rt3Ln8Vc5YhD","data":[…],"credits_charged":1}' }],
                    isError: false,
                  },
                },
              },
            },
          },
          400: {
            description: 'Parse error, a batch, or arguments nested too deep (JSON-RPC error)',
            content: { 'application/json': { schema: serverMessage, example: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } } },
          },
          406: {
            description: 'The request does not accept both `application/json` and `text/event-stream` (MCP Streamable HTTP requires a client to)',
            content: {
              'application/json': {
                schema: serverMessage,
                example: {
                  jsonrpc: '2.0',
                  id: null,
                  error: { code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' },
                },
              },
            },
          },
          401: {
            description: '`invalid_token`, or no token',
            headers: challenge,
            content: {
              'application/json': {
                schema: OAUTH_ERROR_SCHEMA,
                example: { error: 'invalid_token', error_description: 'The access token is invalid or expired.' },
              },
            },
          },
          403: {
            description: '`insufficient_scope`',
            headers: challenge,
            content: {
              'application/json': {
                schema: OAUTH_ERROR_SCHEMA,
                example: { error: 'insufficient_scope', error_description: 'The access token lacks the scopes: mcp:tools.' },
              },
            },
          },
          429: {
            description: "`rate_limited`: the client credential's rate (Retry-After)",
            headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
            content: {
              'application/json': {
                schema: OAUTH_ERROR_SCHEMA,
                example: { error: 'rate_limited', error_description: 'Too many requests for this client; retry after the Retry-After delay.' },
              },
            },
          },
        },
      },
    },
  };
}
