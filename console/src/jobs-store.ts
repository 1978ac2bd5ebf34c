import { request } from './api.js';
import type { JobDetail } from './types.js';

/**
 * Job details read once and kept for the tab, so moving between pages costs no reads; a live
 * change marks its job stale and the page showing it reads it again (GET /jobs counts against
 * the polling limit, the stream does not).
 */
const details = new Map<string, JobDetail>();

export async function readJob(jobId: string, fresh = false): Promise<JobDetail> {
  const known = details.get(jobId);
  if (known && !fresh) return known;
  const detail = await request<JobDetail>(`/api/v1/jobs/${encodeURIComponent(jobId)}`);
  details.set(jobId, detail);
  return detail;
}

export function forgetJob(jobId: string): void {
  details.delete(jobId);
}

export function forgetAllJobs(): void {
  details.clear();
}

/** Collects re-reads asked for within a moment into one per job. */
export function coalesce(run: (ids: Set<string>) => void, delayMs = 300): (id: string) => void {
  let pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  return (id) => {
    pending.add(id);
    timer ??= setTimeout(() => {
      const ids = pending;
      pending = new Set();
      timer = null;
      run(ids);
    }, delayMs);
  };
}
