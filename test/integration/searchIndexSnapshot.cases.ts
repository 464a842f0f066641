import { runSearch } from '../../core/talent/rankCandidates';
import { buildSearchIndex, loadSearchIndex, personPreview } from '../../core/talent/searchIndex';
import { loadSearchIndexSnapshot, saveSearchIndexSnapshot } from '../../core/talent/searchIndexSnapshot';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { BUILT_IN_SOURCE_ID } from '../../core/talent/sources';
import { startTestApi, type TestApi } from '../support/testApi';
import { testLogger } from '../support/capturedLogs';

let srv: TestApi;
beforeAll(async () => {
  srv = await startTestApi();
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 300 });
});
afterAll(async () => srv.close());

test('a stored snapshot loads as the same index: people, previews and search results', async () => {
  const built = await buildSearchIndex(srv.deps.stores);
  expect(built.size).toBeGreaterThanOrEqual(300);
  await saveSearchIndexSnapshot(srv.deps.stores, built, new Date());
  const loaded = await loadSearchIndexSnapshot(srv.deps.stores, built.version);
  expect(loaded).not.toBeNull();
  expect(loaded!.size).toBe(built.size);
  expect(loaded!.personIds).toEqual(built.personIds);
  for (const o of [0, 1, Math.floor(built.size / 2), built.size - 1]) expect(personPreview(loaded!, o)).toEqual(personPreview(built, o));
  for (const query of ['engineer', 'python', 'senior data scientist']) {
    const req = { query, filters: {} as never, sources: [BUILT_IN_SOURCE_ID] };
    expect(runSearch(loaded!, req, 10_000)).toEqual(runSearch(built, req, 10_000));
  }
});

test('the snapshot of another people version is never used, and a new version drops the old snapshot', async () => {
  const version = await srv.deps.stores.talent.peopleVersion();
  const first = await loadSearchIndex(srv.deps.stores, testLogger(), Date.now);
  expect(first.version).toBe(version);
  expect(await loadSearchIndexSnapshot(srv.deps.stores, version + 1)).toBeNull();

  await srv.deps.stores.talent.bumpPeopleVersion();
  const second = await loadSearchIndex(srv.deps.stores, testLogger(), Date.now);
  expect(second.version).toBe(version + 1);
  expect(await loadSearchIndexSnapshot(srv.deps.stores, version + 1)).not.toBeNull();
  expect(await loadSearchIndexSnapshot(srv.deps.stores, version)).toBeNull();
  expect((await srv.deps.stores.talent.indexSnapshotManifests()).map((m) => m._id)).toEqual([expect.stringMatching(new RegExp(`:${version + 1}$`))]);
});
