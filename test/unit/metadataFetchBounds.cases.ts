import { MetadataFetchBounds } from '../../core/oauth/metadataFetchBounds';

describe('bounds of metadata-document fetches in one process', () => {
  test('a failure is remembered for the failure-cache time, then forgotten (a clock the test sets)', () => {
    let now = 1_000_000;
    const bounds = new MetadataFetchBounds({ maxInFlight: 2, failureTtlMs: 60_000 }, () => now);
    bounds.rememberFailure('https://a.example/client.json', 'the document URL answered 404');
    expect(bounds.recentFailure('https://a.example/client.json')).toBe('the document URL answered 404');
    expect(bounds.recentFailure('https://b.example/client.json')).toBeUndefined();
    now += 59_999;
    expect(bounds.recentFailure('https://a.example/client.json')).toBe('the document URL answered 404');
    now += 1;
    expect(bounds.recentFailure('https://a.example/client.json')).toBeUndefined();
  });

  test('a failure remembered again starts its time again', () => {
    let now = 0;
    const bounds = new MetadataFetchBounds({ maxInFlight: 1, failureTtlMs: 1000 }, () => now);
    bounds.rememberFailure('u', 'first');
    now = 900;
    bounds.rememberFailure('u', 'second');
    now = 1500;
    expect(bounds.recentFailure('u')).toBe('second');
  });

  test('at most the configured number of failures are kept, the oldest forgotten first', () => {
    const bounds = new MetadataFetchBounds({ maxInFlight: 1, failureTtlMs: 60_000, maxRememberedFailures: 3 }, () => 0);
    for (const url of ['u1', 'u2', 'u3', 'u4']) bounds.rememberFailure(url, url);
    expect(['u1', 'u2', 'u3', 'u4'].map((u) => bounds.recentFailure(u))).toEqual([undefined, 'u2', 'u3', 'u4']);
  });

  test('places in flight: refused at once beyond the bound, free again when a fetch finishes', () => {
    const bounds = new MetadataFetchBounds({ maxInFlight: 2, failureTtlMs: 1000 });
    expect(bounds.tryStart()).toBe(true);
    expect(bounds.tryStart()).toBe(true);
    expect(bounds.tryStart()).toBe(false);
    expect(bounds.running).toBe(2);
    bounds.finish();
    expect(bounds.tryStart()).toBe(true);
    bounds.finish();
    bounds.finish();
    bounds.finish(); // one too many never makes room beyond the bound
    expect(bounds.running).toBe(0);
    expect([bounds.tryStart(), bounds.tryStart(), bounds.tryStart()]).toEqual([true, true, false]);
  });
});
