import { ProviderRejected, ProviderUnavailable } from '../../core/contactProvider/contactProvider';
import { parseAnswers } from '../../core/contactProvider/httpProvider';
import { parseRetryAfter, retryDelayMs, withProviderRetries } from '../../core/contactProvider/retryPolicy';

const policy = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 1000 };

describe('provider retries', () => {
  test('backoff grows and stays within the ceiling', () => {
    const err = new ProviderUnavailable('x');
    expect(retryDelayMs(policy, 1, err, () => 0)).toBe(5);
    expect(retryDelayMs(policy, 1, err, () => 1)).toBe(10);
    expect(retryDelayMs(policy, 3, err, () => 1)).toBe(40);
    expect(retryDelayMs(policy, 20, err, () => 1)).toBe(1000);
  });
  test('Retry-After is honoured up to the ceiling', () => {
    expect(retryDelayMs(policy, 1, new ProviderUnavailable('x', 300))).toBe(300);
    expect(retryDelayMs(policy, 1, new ProviderUnavailable('x', 60_000))).toBe(1000);
  });
  test('Retry-After parsing', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 5000)).toBe(5000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(null, 0)).toBeUndefined();
  });
  test('transient failures are retried up to the bound, then surface', async () => {
    let calls = 0;
    await expect(
      withProviderRetries(policy, async () => {
        calls++;
        throw new ProviderUnavailable('down');
      }),
    ).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(calls).toBe(3);
  });
  test('a transient failure followed by success succeeds', async () => {
    let calls = 0;
    const r = await withProviderRetries(policy, async () => {
      if (++calls < 3) throw new ProviderUnavailable('down');
      return 'ok';
    });
    expect(r).toBe('ok');
    expect(calls).toBe(3);
  });
  test('a rejection is not retried', async () => {
    let calls = 0;
    await expect(
      withProviderRetries(policy, async () => {
        calls++;
        throw new ProviderRejected('400');
      }),
    ).rejects.toBeInstanceOf(ProviderRejected);
    expect(calls).toBe(1);
  });
});

describe('http provider answers', () => {
  test('keeps only asked people and asked fields', () => {
    const body = JSON.stringify({
      results: [
        { person_id: 'per_a', status: 'found', emails: ['a@x.test'], phones: ['+1'] },
        { person_id: 'per_b', status: 'not_found' },
        { person_id: 'per_other', status: 'found', emails: ['o@x.test'] },
        { person_id: 'per_a', status: 'not_found' },
      ],
    });
    expect(parseAnswers(body, ['per_a', 'per_b', 'per_c'], ['email'])).toEqual([
      { personId: 'per_a', status: 'found', emails: ['a@x.test'], phones: [] },
      { personId: 'per_b', status: 'not_found' },
    ]);
  });
  test('a body that breaks the contract is a rejection', () => {
    expect(() => parseAnswers('nope', ['per_a'], ['email'])).toThrow(ProviderRejected);
    expect(() => parseAnswers('{"data":[]}', ['per_a'], ['email'])).toThrow(ProviderRejected);
  });
});
