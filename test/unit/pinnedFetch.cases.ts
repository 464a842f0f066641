import { fetchMetadataDocument } from '../../core/oauth/metadataDocumentFetch';
import { pinnedFetch, type PinnedRequest } from '../../core/outbound/pinnedFetch';
import type { LookupAll } from '../../core/outbound/destinationPolicy';
import { sendAttempt } from '../../core/webhooks/sendAttempt';
import { OutboundConnections } from '../../core/outbound/outboundConnections';

/** A resolver that never answers, and one that answers a private address; neither lets a socket open. */
const silentResolver: LookupAll = () => new Promise(() => undefined);
const privateResolver: LookupAll = async () => [{ address: '10.0.0.7', family: 4 }];
const connections = new OutboundConnections();

const request = (lookupAll: LookupAll): PinnedRequest => ({
  url: 'https://receiver.example/hook',
  method: 'POST',
  headers: {},
  body: Buffer.from('{}'),
  lookupAll,
  allowedCidrs: [],
  timeoutMs: 50,
  maxResponseBytes: 1024,
  keepAlive: false,
  connections,
});

describe('the pinned outbound fetch (webhook attempts and metadata documents)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('one budget covers DNS: a resolver that does not answer in time is a timeout, for both callers', async () => {
    const raw = pinnedFetch(request(silentResolver));
    const attempt = sendAttempt(
      { url: 'https://receiver.example/hook', headers: {}, body: '{}' },
      { lookupAll: silentResolver, allowedCidrs: [], timeoutMs: 50, connections },
    );
    const doc = fetchMetadataDocument('https://client.example/meta.json', { lookupAll: silentResolver, allowedCidrs: [], timeoutMs: 50, connections });
    await jest.advanceTimersByTimeAsync(50);
    expect(await raw).toEqual({ kind: 'timeout', address: null });
    expect(await attempt).toMatchObject({ ok: false, errorCode: 'timeout', responseStatus: null, address: null });
    expect(await doc).toEqual({ ok: false, reason: 'the document was not served within 50 ms' });
  });

  test('an address the destination policy refuses is never connected to', async () => {
    expect(await pinnedFetch(request(privateResolver))).toEqual({ kind: 'refused', reason: 'address_not_allowed' });
    expect(await pinnedFetch({ ...request(privateResolver), url: 'http://receiver.example/hook' })).toEqual({ kind: 'refused', reason: 'not_https' });
  });
});
