import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Schema, type Connection } from 'mongoose';
import { openConnection } from '../../core/store/connection';
import { testConfig } from '../support/testConfig';

/**
 * The local store copies its write-ahead log into the database file in the background
 * (scripts/ferretdb/backgroundCheckpoint.patch), so that no command waits for a checkpoint
 * inside its commit. Writes spread over a few seconds must then leave the log short: stock
 * FerretDB lets it grow to 1,000 pages (4 MB) before a commit checkpoints it, and the build's
 * backstop to 10,000. Only meaningful on the local store the global set-up started; against a
 * MongoDB given by MONGODB_URI there is no log file to look at.
 */
const docSchema = new Schema({ _id: String, body: String }, { versionKey: false });
const docModel = (connection: Connection) => connection.model('CheckpointTestDoc', docSchema, 'checkpoint_test_docs');
let connection: Connection;
let Doc: ReturnType<typeof docModel>;

const config = testConfig();
const databaseName = new URL(config.mongodbUri).pathname.slice(1);
const localStoreDir = process.env.MONGODB_URI ? undefined : join(process.env.TEST_SERVICES_DIR ?? '', 'ferretdb');
const walFile = localStoreDir && join(localStoreDir, `${databaseName}.sqlite-wal`);

beforeAll(async () => {
  connection = await openConnection(config.mongodbUri);
  Doc = docModel(connection);
});
afterAll(async () => connection.close());

(walFile ? test : test.skip)('writes spread over seconds, with a pause, keep the local store write-ahead log short', async () => {
  const rounds = 60;
  const perRound = 100;
  const body = 'x'.repeat(1000);
  let largestWal = 0;
  for (let r = 0; r < rounds; r++) {
    await Doc.insertMany(Array.from({ length: perRound }, (_, i) => ({ _id: `${r}:${i}`, body })));
    if (existsSync(walFile!)) largestWal = Math.max(largestWal, statSync(walFile!).size);
    // Real time on purpose: the store, a process of its own, checkpoints its log on its own clock.
    // Half way, a second without writes: the checkpoints resume with the next commit.
    await new Promise((resolve) => setTimeout(resolve, r === rounds / 2 ? 1000 : 50));
  }
  // Everything written is there; about 6 MB went through the log.
  expect(await Doc.countDocuments()).toBe(rounds * perRound);
  expect(largestWal).toBeGreaterThan(0);
  expect(largestWal).toBeLessThan(2.5 * 1024 * 1024);
});
