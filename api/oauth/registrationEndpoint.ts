import type { Context } from 'koa';
import type { Stores } from '../../core/deps';
import getRawBody from 'raw-body';
import { releaseSlot, takeSlot } from '../../core/users/attemptSlots';
import { RegistrationError, registerPublicClient } from '../../core/oauth/publicClients';

/**
 * POST {AUTH_URL}/api/oauth/register: RFC 7591 dynamic registration of public clients (MCP
 * clients without a metadata document). Limited to REGISTRATIONS_PER_HOUR successful
 * registrations per client address, shared by every replica; refusals write nothing.
 */
export const REGISTRATIONS_PER_HOUR = 30;
const MAX_BODY_BYTES = 16_384;

function fail(ctx: Context, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  ctx.status = status;
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  ctx.body = { error, error_description: description };
}

/** `now`: the app's clock, which the per-address registration slots are counted on. */
export function registrationEndpoint(stores: Stores, now: () => number) {
  return async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    const type = ctx.get('Content-Type').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') return fail(ctx, 400, 'invalid_client_metadata', 'Send the client metadata as application/json.');
    let metadata: unknown;
    try {
      const raw = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length: ctx.get('Content-Length') || undefined, encoding: 'utf8' });
      metadata = JSON.parse(raw);
    } catch {
      ctx.set('Connection', 'close');
      return fail(ctx, 400, 'invalid_client_metadata', `The body must be one JSON object of at most ${MAX_BODY_BYTES} bytes.`);
    }
    const slot = await takeSlot(stores, `register:${ctx.ip}`, REGISTRATIONS_PER_HOUR, 3600_000, new Date(now()));
    if (!slot.ok) {
      return fail(ctx, 429, 'rate_limited', 'Too many client registrations from this address; retry after Retry-After seconds.', {
        'Retry-After': String(slot.retryAfterSeconds),
        'Cache-Control': 'private, no-store',
      });
    }
    try {
      ctx.body = await registerPublicClient(stores, metadata, new Date(now()));
      ctx.status = 201;
    } catch (err) {
      await releaseSlot(stores, slot.slotId);
      if (err instanceof RegistrationError) return fail(ctx, 400, err.error, err.description);
      throw err;
    }
  };
}
