import { startHttpsReceiver } from '../test/support/httpsReceiver';
import { epochNow, type ReceiverCommand, type ReceiverMessage } from './webhookBenchProcesses';

/**
 * The benchmark's webhook receiver in a process of its own, as a user's receiver would be: a
 * real HTTPS server answering 200 at once. It counts requests by `webhook-id` (an event POSTed
 * twice is a duplicate) and reports each event's first POST to the parent in batches.
 */
const send = (m: ReceiverMessage) => process.send!(m);

async function main(): Promise<void> {
  const receiver = await startHttpsReceiver();
  const seen = new Map<string, number>();
  let requests = 0;
  let batch: Array<[string, number]> = [];
  receiver.onRequest = (r) => {
    const at = epochNow();
    requests += 1;
    // The receiver's request log would hold every body: this process only needs the counts.
    receiver.requests.length = 0;
    const id = String(r.headers['webhook-id']);
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    if (n === 0) batch.push([id, at]);
  };
  const flush = setInterval(() => {
    if (!batch.length) return;
    send({ type: 'firstPosts', posts: batch });
    batch = [];
  }, 20);
  process.on('message', (cmd: ReceiverCommand) => {
    if (cmd.type === 'counts') {
      const duplicated = [...seen].filter(([, n]) => n > 1);
      send({ type: 'counts', requests, distinct: seen.size, duplicated });
    } else if (cmd.type === 'stop') {
      clearInterval(flush);
      void receiver.close().then(() => process.exit(0));
    }
  });
  send({ type: 'ready', url: receiver.url, caFile: receiver.caFile });
}

// Never outlive the benchmark that started this process.
process.on('disconnect', () => process.exit(1));

main().catch((err) => {
  process.stderr.write(`receiver process failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
