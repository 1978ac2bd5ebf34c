import { errorMessage, request } from '../api.js';
import { barChart } from '../charts.js';
import { button, errorBox, formatDate, h, table } from '../dom.js';
import type { Overview, OverviewResponse } from '../types.js';

/** A wait in words: seconds under two minutes, then minutes and seconds, then hours and minutes. */
function waitFor(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** `HH:MM` of a minute, in UTC as the axis says. */
const minuteOf = (iso: string) => iso.slice(11, 16);

function resultsPerMinute(overview: Overview): HTMLElement {
  const minutes = overview.results_per_minute;
  const completed = minutes.reduce((sum, minute) => sum + minute.completed, 0);
  const failed = minutes.reduce((sum, minute) => sum + minute.failed, 0);
  const busiest = minutes.reduce((most, minute) =>
    minute.completed + minute.failed > most.completed + most.failed ? minute : most,
  );
  const summary =
    completed + failed === 0
      ? 'No result settled in the last hour.'
      : `In the last hour ${completed} ${completed === 1 ? 'result' : 'results'} completed and ${failed} failed; ` +
        'the busiest minute was ' +
        `${minuteOf(busiest.minute)} UTC with ${busiest.completed + busiest.failed}.`;
  return barChart({
    name: 'results-per-minute',
    title: 'Results settled per minute, last hour',
    summary,
    xLabel: 'Minute (UTC)',
    yLabel: 'Results',
    series: [
      { name: 'completed', className: 'chart-completed' },
      { name: 'failed', className: 'chart-failed' },
    ],
    bars: minutes.map((minute) => ({ label: minuteOf(minute.minute), values: [minute.completed, minute.failed] })),
    tickEvery: 10,
  });
}

function failuresByCode(overview: Overview): HTMLElement {
  const failures = overview.failures_by_code;
  if (failures.length === 0) return h('p', {}, 'No result failed in the last hour.');
  const total = failures.reduce((sum, failure) => sum + failure.count, 0);
  return barChart({
    name: 'failures-by-code',
    title: 'Failed results by error code, last hour',
    summary:
      `${total} ${total === 1 ? 'result' : 'results'} failed in the last hour: ` +
      failures.map((failure) => `${failure.code} ${failure.count}`).join(', ') +
      '.',
    xLabel: 'Error code',
    yLabel: 'Results',
    series: [{ name: 'failed', className: 'chart-failed' }],
    bars: failures.map((failure) => ({ label: failure.code, values: [failure.count] })),
  });
}

function queues(overview: Overview): HTMLElement {
  return table(
    ['Queue', 'Waiting', 'Active', 'Delayed', 'Failed', 'Longest wait'],
    overview.queues.map((queue) => [
      h('span', { class: 'mono' }, queue.name),
      String(queue.waiting),
      String(queue.active),
      String(queue.delayed),
      String(queue.failed),
      waitFor(queue.oldest_waiting_seconds),
    ]),
    'Queues: entries by state, and how long the oldest waiting one has waited',
  );
}

function workers(overview: Overview): HTMLElement {
  if (overview.workers.length === 0) return h('p', { class: 'error' }, 'No worker is connected: nothing is processed.');
  return h(
    'ul',
    { class: 'workers' },
    ...overview.workers.map((worker) =>
      h(
        'li',
        { 'data-worker': worker.name },
        h('span', { class: 'mono' }, worker.name),
        ` consumes ${worker.queues.join(', ')}`,
        worker.addresses.length ? ` (from ${worker.addresses.join(', ')})` : '',
      ),
    ),
  );
}

/** The operators' overview: queues, workers, and the last hour's results and failures. */
export function renderOverview(main: HTMLElement, signOut: HTMLElement): void {
  const body = h('div', { 'aria-live': 'polite' }, h('p', {}, 'Loading…'));
  const load = () =>
    request<OverviewResponse>('/admin/v1/overview', { credential: 'admin' })
      .then(({ overview }) =>
        body.replaceChildren(
          h('p', { class: 'muted' }, `As of ${formatDate(overview.generated_at)}.`),
          h('h2', {}, 'Results per minute'),
          resultsPerMinute(overview),
          h('h2', {}, 'Failures by error code'),
          failuresByCode(overview),
          h('h2', {}, 'Queues'),
          queues(overview),
          h('h2', {}, 'Workers'),
          workers(overview),
        ),
      )
      .catch((error: unknown) => body.replaceChildren(errorBox(errorMessage(error))));
  main.append(
    h('h1', {}, 'Overview'),
    h(
      'p',
      {},
      h('a', { href: '#/operators' }, 'Accounts'),
      ' · ',
      button('Refresh', () => void load()),
      ' ',
      signOut,
    ),
    body,
  );
  void load();
}
