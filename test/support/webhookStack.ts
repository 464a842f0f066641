import { closeAttemptAgents } from '../../core/webhooks/sendAttempt';
import { startHttpsReceiver, type HttpsReceiver } from './httpsReceiver';
import { startTestApi, type TestApi } from './testApi';
import { startTestWorker, type TestWorker } from './testWorker';

export interface WebhookStack {
  srv: TestApi;
  worker: TestWorker;
  receiver: HttpsReceiver;
  /** Stops what started, worker first (so no attempt is left running against a closed API or receiver). */
  close: () => Promise<void>;
}

/**
 * The API and a worker that may deliver to a loopback HTTPS receiver: loopback addresses are
 * allowed as destinations and the receiver's CA is trusted, the two settings a real
 * destination never needs. `env` adds settings (e.g. short retry delays).
 */
export async function startWebhookStack(env: Record<string, string> = {}): Promise<WebhookStack> {
  const started: Partial<Omit<WebhookStack, 'close'>> = {};
  const close = async () => {
    await started.worker?.stop();
    await started.srv?.close();
    await started.receiver?.close();
    closeAttemptAgents();
  };
  try {
    started.receiver = await startHttpsReceiver();
    started.srv = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: started.receiver.caFile, ...env });
    started.worker = await startTestWorker(started.srv.config);
  } catch (err) {
    await close();
    throw err;
  }
  return { srv: started.srv, worker: started.worker, receiver: started.receiver, close };
}
