import { randomInt } from 'node:crypto';
import type { ApiClient } from './apiClient';
import type { ChaosTenant } from './tenants';

/**
 * The mixed load: each tenant loops over searches, unlocks and contact-retrieval jobs at a
 * modest pace (the machine is shared); one burst tenant fires volleys above the per-second
 * limit so refusals happen. Jobs are counted against the run's cap.
 */
export interface LoadState {
  jobsStarted: string[];
  jobsRefused: Record<string, number>;
  running: boolean;
}

export interface LoadPlan {
  tenants: ChaosTenant[];
  burst: ChaosTenant;
  personIds: string[];
  maxJobs: number;
  /** People per job. */
  jobSize: number;
  /** Pause between one tenant's requests. */
  pauseMs: number;
  /** Requests in one volley of the burst tenant. */
  volley: number;
}

const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)];
const QUERIES = ['engineer', 'manager', 'designer', 'data', 'sales', 'nurse', 'teacher', 'analyst'];

export function startLoad(api: ApiClient, plan: LoadPlan): { state: LoadState; stop: () => Promise<void> } {
  const state: LoadState = { jobsStarted: [], jobsRefused: {}, running: true };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function job(t: ChaosTenant): Promise<void> {
    if (state.jobsStarted.length >= plan.maxJobs) return;
    const people = new Set<string>();
    while (people.size < plan.jobSize) people.add(pick(plan.personIds));
    const res = await api.call(t.orgId, t.key, 'job', 'POST', '/v1/contact-retrieval-jobs', { person_ids: [...people], fields: ['email', 'phone'] });
    if (res.status === 202 || res.status === 201) state.jobsStarted.push(res.json.job_id);
    else state.jobsRefused[`${res.status} ${res.json?.code ?? ''}`.trim()] = (state.jobsRefused[`${res.status} ${res.json?.code ?? ''}`.trim()] ?? 0) + 1;
  }

  async function tenantLoop(t: ChaosTenant): Promise<void> {
    while (state.running) {
      const r = randomInt(100);
      if (r < 55) await api.call(t.orgId, t.key, 'search', 'POST', '/v1/candidates/search', { query: pick(QUERIES), page_size: 10 });
      else if (r < 80) await api.call(t.orgId, t.key, 'unlock', 'POST', '/v1/profiles/unlock', { person_id: pick(plan.personIds) });
      else if (r < 90) await api.call(t.orgId, t.key, 'list jobs', 'GET', '/v1/contact-retrieval-jobs?limit=5');
      else await job(t);
      await sleep(plan.pauseMs);
    }
  }

  async function burstLoop(t: ChaosTenant): Promise<void> {
    while (state.running) {
      await Promise.all(Array.from({ length: plan.volley }, () => api.call(t.orgId, t.key, 'burst', 'GET', '/v1/whoami')));
      await sleep(3000);
    }
  }

  const loops = [...plan.tenants.map(tenantLoop), burstLoop(plan.burst)];
  return {
    state,
    stop: async () => {
      state.running = false;
      await Promise.all(loops);
    },
  };
}
