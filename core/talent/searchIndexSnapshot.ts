import { deserialize, serialize } from 'node:v8';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { SearchIndex } from './searchIndexColumns';
import type { TalentStores } from './store';

/**
 * A built search index kept in the store, per people version, so an API replica starts from it
 * instead of reading every person. Reading a million people from FerretDB 1.x takes minutes (it
 * decodes each document's JSON); the snapshot is a few dozen binary parts read by id: seconds.
 * The people collection stays the truth: a snapshot is used only for the version it was built
 * from, and the first replica that builds a version writes its snapshot for the others.
 *
 * Layout: parts `<format>:<version>:<n>` (gzip of the V8-serialized index, split under the
 * document size limit), then in a collection of their own (small: listing it never reads the
 * parts) the manifest `<format>:<version>` naming how many parts there are. The manifest is
 * inserted last, so a reader never sees a half-written snapshot; every insert is a unique
 * insert, so replicas writing the same version at once do not conflict. FORMAT changes with
 * the layout of SearchIndex, so a replica never reads another code version's snapshot.
 */
const FORMAT = 'columns1';
const PART_BYTES = 8 * 2 ** 20;
/** How many parts one read asks for (each is up to PART_BYTES). */
const PARTS_PER_READ = 4;

const manifestId = (version: number) => `${FORMAT}:${version}`;
const partId = (version: number, part: number) => `${FORMAT}:${version}:${part}`;

/** The index of `version` from its snapshot, or null when there is none (yet). */
export async function loadSearchIndexSnapshot(stores: TalentStores, version: number): Promise<SearchIndex | null> {
  const manifest = await stores.talent.findIndexSnapshotManifest(manifestId(version));
  if (!manifest?.parts) return null;
  const chunks: Buffer[] = [];
  for (let from = 0; from < manifest.parts; from += PARTS_PER_READ) {
    const ids = Array.from({ length: Math.min(PARTS_PER_READ, manifest.parts - from) }, (_, k) => partId(version, from + k));
    const byId = await stores.talent.findIndexSnapshotParts(ids);
    for (const id of ids) {
      const data = byId.get(id);
      if (!data) return null;
      chunks.push(data);
    }
  }
  const idx = deserialize(gunzipSync(Buffer.concat(chunks))) as SearchIndex;
  return idx.version === version ? idx : null;
}

/** Stores the snapshot of `idx` (a no-op when its version has one) and drops the snapshots of other versions. */
export async function saveSearchIndexSnapshot(stores: TalentStores, idx: SearchIndex, now: Date): Promise<void> {
  if (await stores.talent.indexSnapshotManifestExists(manifestId(idx.version))) return;
  const bytes = gzipSync(serialize(idx), { level: 1 });
  const parts = Math.ceil(bytes.length / PART_BYTES);
  for (let part = 0; part < parts; part++) {
    const data = bytes.subarray(part * PART_BYTES, (part + 1) * PART_BYTES);
    await stores.talent.insertIndexSnapshotPart({ _id: partId(idx.version, part), version: idx.version, part, data, createdAt: now });
  }
  await stores.talent.insertIndexSnapshotManifest({
    _id: manifestId(idx.version),
    version: idx.version,
    parts,
    bytes: bytes.length,
    createdAt: now,
  });
  await dropOtherSnapshots(stores, idx.version);
}

/** Deletes the snapshots other than the current one of `keep`, by id (their manifests name their parts). */
async function dropOtherSnapshots(stores: TalentStores, keep: number): Promise<void> {
  const manifests = await stores.talent.indexSnapshotManifests();
  for (const m of manifests) {
    if (m._id === manifestId(keep)) continue;
    // The manifest first: from then on no reader trusts the parts being deleted.
    await stores.talent.deleteIndexSnapshotManifest(m._id);
    const ids = Array.from({ length: m.parts ?? 0 }, (_, k) => `${m._id}:${k}`);
    await stores.talent.deleteIndexSnapshotParts(ids);
  }
}
