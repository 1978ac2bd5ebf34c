import { errorMessage, query, request } from '../api.js';
import { button, errorBox, field, formatDate, h, link, select, table } from '../dom.js';
import { coalesce, forgetJob, readJob } from '../jobs-store.js';
import { liveEvents } from '../live.js';
import { JOB_STATUSES, TOOL_IDS, type JobList, type JobSummary } from '../types.js';

const PAGE_SIZE = 20;

export function statusBadge(status: string): HTMLElement {
  return h('span', { class: `status status-${status}` }, status.replace('_', ' '));
}

function cellsFor(job: JobSummary): (Node | string)[] {
  return [
    link(job.id.slice(0, 8), `#/jobs/${job.id}`, { 'aria-label': `Job ${job.id}`, class: 'mono' }),
    job.api,
    statusBadge(job.status),
    `${job.completed_results + job.failed_results} / ${job.total_results}`,
    job.sandbox ? 'sandbox' : `${job.credits_used} / ${job.credits_reserved}`,
    formatDate(job.created_at),
  ];
}

/** The key's jobs, newest first, filtered by status and tool, a page at a time. */
export function renderJobs(main: HTMLElement): () => void {
  const status = select([['', 'any status'], ...JOB_STATUSES.map((value): [string, string] => [value, value])]);
  const tool = select([['', 'any tool'], ...TOOL_IDS.map((value): [string, string] => [value, value])]);
  const list = h('div', { 'aria-live': 'polite', 'aria-busy': 'false' });
  const pager = h('div', { class: 'pager' });
  /** Cursors of the pages before this one, to page back. */
  const cursors: (string | null)[] = [];
  let cursor: string | null = null;
  let shown: JobSummary[] = [];

  const load = async () => {
    list.setAttribute('aria-busy', 'true');
    try {
      const page = await request<JobList>(
        `/api/v1/jobs${query({ limit: PAGE_SIZE, cursor, status: status.value, api: tool.value })}`,
      );
      shown = page.jobs;
      draw(page.next_cursor);
    } catch (error) {
      list.replaceChildren(errorBox(errorMessage(error)));
    } finally {
      list.setAttribute('aria-busy', 'false');
    }
  };

  const draw = (next: string | null) => {
    list.replaceChildren(
      shown.length
        ? table(['Job', 'Tool', 'Status', 'Done', 'Credits', 'Created'], shown.map(cellsFor), 'Jobs, newest first')
        : h('p', {}, 'No jobs match.'),
    );
    pager.replaceChildren(
      button(
        'Newer',
        () => {
          cursor = cursors.pop() ?? null;
          void load();
        },
        { disabled: cursors.length === 0 },
      ),
      button(
        'Older',
        () => {
          cursors.push(cursor);
          cursor = next;
          void load();
        },
        { disabled: next === null },
      ),
    );
  };

  const restart = () => {
    cursors.length = 0;
    cursor = null;
    void load();
  };
  status.addEventListener('change', restart);
  tool.addEventListener('change', restart);

  // A shown job that changed is read again alone; a new job shows on the first page.
  const reread = coalesce((ids) => {
    for (const id of ids) {
      if (id === '*') {
        void load();
        continue;
      }
      forgetJob(id);
      readJob(id, true)
        .then((detail) => {
          shown = shown.map((job) => (job.id === id ? detail.job : job));
          const row = list.querySelector(`a[href="#/jobs/${CSS.escape(id)}"]`)?.closest('tr');
          if (row) row.replaceWith(rowFor(detail.job));
        })
        .catch(() => undefined);
    }
  });
  const rowFor = (job: JobSummary) => h('tr', {}, ...cellsFor(job).map((cell) => h('td', {}, cell)));
  const unsubscribe = liveEvents.subscribe((change) => {
    if (change === 'resync') return reread('*');
    if (change.type !== 'job') return;
    if (shown.some((job) => job.id === change.job_id)) reread(change.job_id);
    else if (change.status === 'queued' && cursor === null) reread('*');
  });

  main.append(
    h('h1', {}, 'Jobs'),
    h('div', { class: 'filters' }, field('Status', status), field('Tool', tool)),
    list,
    pager,
  );
  void load();
  return unsubscribe;
}
