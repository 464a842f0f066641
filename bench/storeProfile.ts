import mongoose from 'mongoose';
import { storeOn, type StoreHandle } from '../core/store/connection';

/**
 * BENCH_PROFILE=1: time of every store command by name and collection, printed after a run
 * (which round trips a request makes, and which of them are slow on this store).
 */
export interface StoreProfile {
  print(write: (line: string) => void): void;
}

/** Opens the bench's store with command monitoring on, and times every command it sends. */
export async function openProfiledStore(uri: string): Promise<{ store: StoreHandle; profile: StoreProfile }> {
  const connection = await mongoose
    .createConnection(uri, { serverSelectionTimeoutMS: 5000, maxPoolSize: 50, autoIndex: false, monitorCommands: true })
    .asPromise();
  return { store: storeOn(connection), profile: profileCommands(connection.getClient()) };
}

function profileCommands(client: ReturnType<mongoose.Connection['getClient']>): StoreProfile {
  const rows = new Map<string, { n: number; ms: number }>();
  const names = new Map<number, string>();
  client.on('commandStarted', (e) => {
    const cmd = e.command as Record<string, unknown>;
    names.set(e.requestId, `${e.commandName} ${String(cmd[e.commandName])}`);
  });
  client.on('commandSucceeded', (e) => {
    const k = names.get(e.requestId) ?? e.commandName;
    names.delete(e.requestId);
    const s = rows.get(k) ?? { n: 0, ms: 0 };
    s.n += 1;
    s.ms += e.duration;
    rows.set(k, s);
  });
  return {
    print(write) {
      for (const [k, v] of [...rows.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
        write(`${k.padEnd(50)} n=${v.n} mean=${(v.ms / v.n).toFixed(1)}ms total=${(v.ms / 1000).toFixed(1)}s\n`);
      }
    },
  };
}
