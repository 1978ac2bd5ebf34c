import { download, errorMessage, query, request } from '../api.js';
import { barChart } from '../charts.js';
import { button, errorBox, formatDate, h, table } from '../dom.js';
import type { Ledger, LedgerEntry, Usage, UsageResponse } from '../types.js';

/** The credits used each day of the range as bars, with the figures in words beside them. */
function creditsByDay(usage: Usage): HTMLElement {
  const total = usage.by_day.reduce((sum, day) => sum + day.credits_used, 0);
  const busiest = usage.by_day.reduce((most, day) => (day.credits_used > most.credits_used ? day : most));
  const summary =
    total === 0
      ? `No credits were used from ${usage.from} to ${usage.to}.`
      : `${total} ${total === 1 ? 'credit' : 'credits'} used from ${usage.from} to ${usage.to}, ` +
        `over ${usage.by_day.length} days; ` +
        `the most on ${busiest.date}: ${busiest.credits_used}.`;
  return barChart({
    name: 'credits-by-day',
    title: 'Credits used by day',
    summary,
    xLabel: 'Day (UTC)',
    yLabel: 'Credits',
    series: [{ name: 'credits', className: 'chart-credits' }],
    bars: usage.by_day.map((day) => ({ label: day.date, values: [day.credits_used] })),
    tickEvery: usage.by_day.length > 10 ? 7 : 1,
  });
}

/** Credits and results by day and tool, and the ledger of paid credits. */
export function renderUsage(main: HTMLElement): void {
  const usage = h('div', { 'aria-live': 'polite' }, h('p', {}, 'Loading…'));
  const ledger = h('div', {}, h('p', {}, 'Loading…'));
  const entries: LedgerEntry[] = [];
  let cursor: string | null = null;

  request<UsageResponse>('/api/v1/account/usage')
    .then(({ usage: read }) => {
      const peak = Math.max(1, ...read.by_day.map((day) => day.results_completed + day.results_failed));
      const bar = (value: number) => {
        const element = h('span', { class: 'bar', 'aria-hidden': 'true' });
        element.style.width = `${(value / peak) * 100}%`;
        return element;
      };
      usage.replaceChildren(
        h('h2', {}, 'Credits used by day'),
        creditsByDay(read),
        h(
          'p',
          {},
          `${read.from} to ${read.to}: ${read.totals.credits_used} credits used, ` +
            `${read.totals.results_completed} results completed, ${read.totals.results_failed} failed.`,
        ),
        table(
          ['Tool', 'Credits used', 'Completed', 'Failed'],
          read.by_tool.map((row) => [
            row.tool,
            String(row.credits_used),
            String(row.results_completed),
            String(row.results_failed),
          ]),
          'By tool',
        ),
        table(
          ['Day', 'Credits used', 'Completed', 'Failed', ''],
          read.by_day
            .filter((day) => day.results_completed + day.results_failed + day.credits_used > 0)
            .map((day) => [
              day.date,
              String(day.credits_used),
              String(day.results_completed),
              String(day.results_failed),
              bar(day.results_completed + day.results_failed),
            ]),
          'By day (days with activity)',
        ),
      );
    })
    .catch((error: unknown) => usage.replaceChildren(errorBox(errorMessage(error))));

  const loadLedger = () =>
    request<Ledger>(`/api/v1/account/ledger${query({ limit: 20, cursor })}`)
      .then((page) => {
        entries.push(...page.entries);
        cursor = page.next_cursor;
        ledger.replaceChildren(
          entries.length
            ? table(
                ['When', 'Kind', 'Amount', 'Credits', 'Balance after', 'Job or reason'],
                entries.map((entry) => [
                  formatDate(entry.created_at),
                  entry.kind,
                  String(entry.amount),
                  String(entry.credits),
                  String(entry.balance_after),
                  entry.job_id
                    ? h('a', { href: `#/jobs/${entry.job_id}`, class: 'mono' }, entry.job_id.slice(0, 8))
                    : (entry.reason ?? ''),
                ]),
                'Ledger, newest first',
              )
            : h('p', {}, 'No ledger entries.'),
          cursor ? button('Older entries', () => void loadLedger()) : '',
        );
      })
      .catch((error: unknown) => ledger.replaceChildren(errorBox(errorMessage(error))));

  const downloads = h('div', { 'aria-live': 'polite' });
  const save = (path: string) =>
    download(path)
      .then((filename) => downloads.replaceChildren(h('p', { class: 'ok' }, `Downloaded ${filename}.`)))
      .catch((error: unknown) => downloads.replaceChildren(errorBox(errorMessage(error))));
  const exports = h(
    'div',
    { class: 'actions' },
    button('Download the ledger (CSV)', () => void save('/api/v1/account/ledger.csv')),
    button('Download usage by day and tool (CSV)', () => void save('/api/v1/account/usage.csv')),
  );

  main.append(h('h1', {}, 'Usage'), exports, downloads, usage, h('h2', {}, 'Ledger'), ledger);
  void loadLedger();
}
