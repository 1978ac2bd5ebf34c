import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { parseCsv } from '../support/csv';
import { deployForConsole, openBrowser, watchPage, type ConsoleBrowser } from '../support/console-e2e';
import { Deployment } from '../support/deployment';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { fromFixture, paint } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { REPO_ROOT } from '../support/processes';
import { postJson, seedAccountOverHttp } from '../support/service-http';
import { readUntil } from '../support/waiting';

const ADMIN_TOKEN = 'console-operators-admin-token-0123456789';
/** Screenshots for people to look at; the folder is ignored by git. */
const SCREENSHOTS = join(REPO_ROOT, 'test-output', 'console');

/** How long the page is given to show what it waits for: not a bound on speed (see console.e2e-spec.ts). */
const PAGE_WAIT_MS = 60_000;
jest.setTimeout(4 * PAGE_WAIT_MS);

interface LedgerEntry {
  id: string;
  kind: string;
  amount: number;
  balance_after: number;
  reason: string | null;
}

interface Usage {
  by_day: Array<{ date: string; credits_used: number }>;
}

/** The rows of a CSV file the console downloaded. */
const csvRows = (path: string) => parseCsv(readFileSync(path, 'utf8')).rows;

describe('the console’s operator search and overview, and the usage chart and exports', () => {
  let deployment: Deployment;
  let sources: ImageSourceServer;
  let base = '';
  let browser: ConsoleBrowser;
  let page: Page;
  const consoleErrors: string[] = [];
  let accountId = '';
  let liveKey = '';
  let failureCode = '';
  const segmentation = new FakeSegmentationService();

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const api = async <T>(path: string, token: string): Promise<T> => {
    const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    deployment = await Deployment.create('e2e-console-operators');
    sources = await ImageSourceServer.start();
    const photo = paint(64, 48, (x) => (x < 32 ? [240, 140, 30] : [90, 100, 120]));
    sources.serve('/photo.png', await fromFixture(photo).png().toBuffer(), { contentType: 'image/png' });
    sources.route('/segment', segmentation.handle);
    base = await deployForConsole(deployment, ADMIN_TOKEN, sources.url('/segment'));

    const account = await seedAccountOverHttp(base, ADMIN_TOKEN, {
      name: 'Northwind Traders',
      credits: 40,
      environment: 'live',
    });
    accountId = account.accountId;
    liveKey = account.key;
    await seedAccountOverHttp(base, ADMIN_TOKEN, { name: 'Contoso', credits: 5, environment: 'live' });
    await postJson(
      `${base}/admin/v1/accounts/${accountId}/credits`,
      { amount: 2, reason: 'Goodwill, for the "slow" week\nsecond line' },
      { Authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    // Two results complete, one fails: its source is not there.
    const created = await postJson(
      `${base}/api/v1/remove-background`,
      {
        input: [
          { image_url: sources.url('/photo.png'), external_id: 'a' },
          { image_url: sources.url('/missing.png'), external_id: 'b' },
          { image_url: sources.url('/photo.png'), external_id: 'c' },
        ],
      },
      { Authorization: `Bearer ${liveKey}`, 'Idempotency-Key': 'console-operators-1' },
    );
    expect(created.status).toBe(202);
    const jobId = (created.body.job as { id: string }).id;
    const job = await readUntil(
      () =>
        api<{ job: { status: string }; results: Array<{ status: string; error_code: string | null }> }>(
          `/api/v1/jobs/${jobId}`,
          liveKey,
        ),
      (read) => !['queued', 'processing'].includes(read.job.status),
      'the job to end',
      { timeoutMs: PAGE_WAIT_MS, intervalMs: 200 },
    );
    expect(job.results.map((result) => result.status)).toEqual(['completed', 'failed', 'completed']);
    failureCode = job.results[1].error_code ?? '';

    browser = await openBrowser({ acceptDownloads: true });
    page = browser.page;
    watchPage(page, consoleErrors, PAGE_WAIT_MS, { warnings: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await deployment?.close();
    await sources?.stop();
  });

  it('lets an operator find an account by a part of its name and open it', async () => {
    await page.goto(`${base}/console/#/operators`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Every account is listed at first, newest first.
    await page.getByRole('button', { name: 'Contoso' }).waitFor();
    await page.getByLabel('Find an account').fill('WIND trad');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Accounts matching “WIND trad”').waitFor();
    expect(await page.locator('[data-account]').count()).toBe(1);
    await page.getByRole('button', { name: 'Northwind Traders' }).click();
    await page.getByRole('heading', { name: 'Northwind Traders' }).waitFor();
    expect(await page.locator('[data-role=account-id]').textContent()).toBe(accountId);
    await shot('operators-search');
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the ledger (CSV)' }).click(),
    ]);
    expect(file.suggestedFilename()).toBe(`ledger-${accountId}.csv`);
    const rows = csvRows(await file.path());
    const entries = (await api<{ entries: LedgerEntry[] }>(`/admin/v1/accounts/${accountId}/ledger`, ADMIN_TOKEN))
      .entries;
    expect(rows.slice(1).map((row) => row[0])).toEqual(entries.map((entry) => entry.id));
  });

  it('shows the overview: results per minute and failures by code as charts, the queues and the worker', async () => {
    await page.getByRole('link', { name: /^Overview/ }).click();
    const perMinute = page.locator('svg[data-chart=results-per-minute]');
    await perMinute.waitFor();
    const overview = (
      await api<{ overview: { workers: Array<{ name: string }>; queues: unknown[] } }>(
        '/admin/v1/overview',
        ADMIN_TOKEN,
      )
    ).overview;
    expect(await perMinute.locator('g.chart-bar').count()).toBe(60);
    const values = (series: string) =>
      perMinute
        .locator(`rect[data-series=${series}]`)
        .evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-value'))));
    expect((await values('completed')).reduce((sum, value) => sum + value, 0)).toBe(2);
    expect((await values('failed')).reduce((sum, value) => sum + value, 0)).toBe(1);
    const failures = page.locator('svg[data-chart=failures-by-code] g.chart-bar');
    expect(await failures.count()).toBe(1);
    expect(await failures.first().getAttribute('data-label')).toBe(failureCode);
    expect(await failures.first().locator('rect').getAttribute('data-value')).toBe('1');
    expect(await page.getByRole('img', { name: /Results settled per minute/ }).count()).toBe(1);
    expect(await page.locator('figcaption').first().textContent()).toMatch(/2 results completed and 1 failed/);
    const queueRows = page.locator('table').filter({ hasText: 'Longest wait' }).locator('tbody tr');
    expect(await queueRows.count()).toBe(overview.queues.length);
    expect(overview.workers.length).toBeGreaterThan(0);
    for (const worker of overview.workers) {
      expect(await page.locator(`[data-worker="${worker.name}"]`).textContent()).toContain('background-removal');
    }
    await shot('operators-overview');
  });

  it('draws credits by day on the usage page and downloads the ledger and usage as CSV', async () => {
    await page.goto(`${base}/console/#/sign-in`);
    await page.getByLabel('API key').fill(liveKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'Usage' }).click();
    const chart = page.locator('svg[data-chart=credits-by-day]');
    await chart.waitFor();
    const usage = (await api<{ usage: Usage }>('/api/v1/account/usage', liveKey)).usage;
    const bars = chart.locator('g.chart-bar');
    expect(await bars.count()).toBe(usage.by_day.length);
    const drawn = await bars.evaluateAll((groups) =>
      groups.map((group) => [
        group.getAttribute('data-label'),
        group.querySelector('rect')?.getAttribute('data-value'),
      ]),
    );
    expect(drawn).toEqual(usage.by_day.map((day) => [day.date, String(day.credits_used)]));
    expect(usage.by_day.some((day) => day.credits_used > 0)).toBe(true);
    expect(await page.getByRole('img', { name: /Credits used by day/ }).count()).toBe(1);
    await shot('usage');

    const [ledgerFile] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the ledger (CSV)' }).click(),
    ]);
    expect(ledgerFile.suggestedFilename()).toBe('ledger-live.csv');
    const rows = csvRows(await ledgerFile.path());
    const ledger = (await api<{ entries: LedgerEntry[] }>('/api/v1/account/ledger?limit=100', liveKey)).entries;
    expect(rows[0]).toEqual(['id', 'created_at', 'kind', 'amount', 'credits', 'balance_after', 'job_id', 'reason']);
    expect(rows.slice(1).map((row) => [row[0], row[2], row[3], row[5], row[7]])).toEqual(
      ledger.map((entry) => [
        entry.id,
        entry.kind,
        String(entry.amount),
        String(entry.balance_after),
        entry.reason ?? '',
      ]),
    );
    expect(rows.slice(1).map((row) => row[7])).toContain('Goodwill, for the "slow" week\nsecond line');
    await page.getByText('Downloaded ledger-live.csv.').waitFor();

    const [usageFile] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download usage by day and tool (CSV)' }).click(),
    ]);
    const usageRows = csvRows(await usageFile.path());
    expect(usageRows[0]).toEqual(['date', 'tool', 'credits_used', 'results_completed', 'results_failed']);
    const today = usage.by_day.find((day) => day.credits_used > 0)!;
    expect(usageRows.slice(1)).toEqual([[today.date, 'remove_background', String(today.credits_used), '2', '1']]);
  });

  it('logged no console error, warning or policy violation', () => {
    expect(consoleErrors).toEqual([]);
  });
});
