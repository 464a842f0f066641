import { indexSetDigest } from '../../core/store/indexSet';

const keys = { collection: 'api_keys', indexes: [[{ hash: 1 }, { unique: true }]] };
const jobs = { collection: 'contact_retrieval_jobs', indexes: [[{ orgId: 1, createdAt: -1 }, {}]] };

test('the same models in any order have one digest', () => {
  expect(indexSetDigest([keys, jobs])).toBe(indexSetDigest([jobs, keys]));
  expect(indexSetDigest([keys, jobs])).toMatch(/^[\w-]{43}$/);
});

test('a changed, added or removed index, or another collection, changes the digest', () => {
  const base = indexSetDigest([keys, jobs]);
  const variants = [
    [{ ...keys, indexes: [[{ hash: 1 }, {}]] }, jobs],
    [{ ...keys, indexes: [...keys.indexes, [{ orgId: 1 }, {}]] }, jobs],
    [{ ...keys, indexes: [] }, jobs],
    [keys, jobs, { collection: 'people', indexes: [] }],
    [keys],
  ];
  const digests = variants.map((v) => indexSetDigest(v));
  expect(digests).not.toContain(base);
  expect(new Set(digests).size).toBe(variants.length);
});
