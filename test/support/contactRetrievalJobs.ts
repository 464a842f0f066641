import { contactRetrievalWorkflowId } from '../../core/jobs/jobRules';
import type { TemporalClients } from '../../core/temporal/client';
import { eventually } from './eventually';
import { fileStores } from './testStore';
import { api, apiHonouringRateLimits, type HttpResponse } from './http';

/**
 * The job as `GET /v1/contact-retrieval-jobs/{id}` answers it once it is no longer running.
 * Polls through the rate limits, since the polls share the tenant's request window with
 * whatever else the test sends.
 */
export async function waitForJobToFinish(baseUrl: string, key: string, jobId: string, timeoutMs = 60_000): Promise<any> {
  return eventually(
    `job ${jobId} to finish`,
    async () => {
      const res = await apiHonouringRateLimits(baseUrl, 'GET', `/v1/contact-retrieval-jobs/${jobId}`, { key });
      expect(res.status).toBe(200);
      return res.json.status !== 'running' ? res.json : undefined;
    },
    { timeoutMs, intervalMs: 150 },
  );
}

/** Every item of a finished job's result, page by page. */
export async function jobResultItems(baseUrl: string, key: string, jobId: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: HttpResponse = await api(baseUrl, 'GET', `/v1/job-results/${jobId}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(page.status).toBe(200);
    items.push(...page.json.items);
    cursor = page.json.next_cursor;
  } while (cursor);
  return items;
}

/**
 * Terminates the workflow of every job still recorded as running, so no workflow of a file
 * outlives it and runs against the next file's store. `temporal`: the test API's (`srv.deps.temporal`);
 * the jobs are read in the file's stores.
 */
export async function terminateRunningJobWorkflows(temporal: TemporalClients): Promise<void> {
  const client = await temporal.client();
  const running = await fileStores().jobs.runningJobIds();
  await Promise.all(
    running.map((jobId) =>
      client.workflow
        .getHandle(contactRetrievalWorkflowId(jobId))
        .terminate('test over')
        .catch(() => undefined),
    ),
  );
}
