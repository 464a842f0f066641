/**
 * The "first call" guide at the top of the reference page. It is the document's
 * `info.description` (Markdown), so /openapi.json and /docs say the same thing. The example
 * receiver it quotes lives, runnable and tested, in examples/webhookReceiver/.
 */
export function firstCallGuide(baseUrl: string): string {
  return `
Errors are RFC 9457 problem documents (\`application/problem+json\`); \`code\` is the contract, and every error response below names the codes it can carry.
Paid calls need an \`Idempotency-Key\`; 429 and 503 answers carry \`Retry-After\` (seconds).

# First call

## 1. Get a key

An operator creates it with the operator CLI (the plaintext key is shown once):

\`\`\`sh
npm run --silent admin -- org create --name "Acme" --credits 100
npm run --silent admin -- key create --org org_… --workspace ws_… \\
  --scopes candidates.search,jobs.v1:write,jobs.v1:read,webhooks.v1:manage
export API_KEY=sk_live_ext_…
\`\`\`

## 2. Who am I

\`\`\`sh
curl -s ${baseUrl}/v1/whoami -H "Authorization: Bearer $API_KEY"
\`\`\`

## 3. Search

\`\`\`sh
curl -s ${baseUrl}/v1/candidates/search -H "Authorization: Bearer $API_KEY" \\
  -H "Content-Type: application/json" -H "Idempotency-Key: $(uuidgen)" \\
  -d '{"query":"rust engineer","filters":{"locations":["DE"]},"page_size":10}'
\`\`\`

Keep the \`search_id\` and a few \`person_id\`s; \`next_cursor\` pages on.

## 4. Register a webhook endpoint, then create a job

\`\`\`sh
curl -s ${baseUrl}/v1/webhook-endpoints -H "Authorization: Bearer $API_KEY" \\
  -H "Content-Type: application/json" -d '{"url":"https://hooks.example.com/talent"}'
# keep the "secret" (whsec_…): it is shown only once

curl -s ${baseUrl}/v1/contact-retrieval-jobs -H "Authorization: Bearer $API_KEY" \\
  -H "Content-Type: application/json" -H "Idempotency-Key: $(uuidgen)" \\
  -d '{"person_ids":["per_…"],"fields":["email"]}'
\`\`\`

## 5. Receive and verify \`job.completed\`

When the job finishes, the service POSTs the \`job.completed\` event (see *Webhook events*) to the endpoint, signed per
[Standard Webhooks](https://www.standardwebhooks.com/). Verify the raw body, deduplicate on \`webhook-id\`, answer 2xx at once,
then read \`data.result_url\` with your key. A runnable receiver is in the repository at \`examples/webhookReceiver/\`:

\`\`\`js
import { Webhook } from 'standardwebhooks';
const wh = new Webhook(process.env.WEBHOOK_SECRET); // whsec_…
// in your HTTP handler, with the raw body bytes as a string:
const event = wh.verify(rawBody, {
  'webhook-id': req.headers['webhook-id'],
  'webhook-timestamp': req.headers['webhook-timestamp'],
  'webhook-signature': req.headers['webhook-signature'],
}); // throws when the signature or the timestamp is wrong: answer 400
if (seen.has(event.id)) return res.writeHead(200).end(); // a retry or a replay
seen.add(event.id);
res.writeHead(204).end();           // answer first…
queueMicrotask(() => handle(event)); // …then fetch event.data.result_url
\`\`\`
`.trim();
}
