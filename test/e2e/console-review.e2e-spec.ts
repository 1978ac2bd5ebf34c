import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { deployForConsole, launchBrowser, twoThings, watchPage } from '../support/console-e2e';
import { Deployment } from '../support/deployment';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { fromFixture } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import type { ResultBody } from '../support/jobs';
import { REPO_ROOT } from '../support/processes';
import { postJson, seedAccountOverHttp } from '../support/service-http';
import { readUntil } from '../support/waiting';

const ADMIN_TOKEN = 'console-review-admin-token-0123456789';
/** Screenshots for people to look at; the folder is ignored by git. */
const SCREENSHOTS = join(REPO_ROOT, 'test-output', 'console-review');
/**
 * How long the page is given to show what it is waiting for (a live update, a result). Not a
 * bound on speed: a machine busy with other test processes can take many seconds.
 */
const PAGE_WAIT_MS = 60_000;
jest.setTimeout(4 * PAGE_WAIT_MS);

/**
 * What the tests read in the page (run there as functions: the console's policy forbids
 * evaluating strings), whose globals this file's types do not describe.
 */
interface InPage {
  document: {
    activeElement: { getAttribute(name: string): string | null } | null;
    images: Iterable<{ complete: boolean }>;
  };
}

interface JobBody {
  job: { id: string; status: string };
  results: ResultBody[];
}

describe('the console’s review page, shared by two keys of one account', () => {
  let deployment: Deployment;
  let sources: ImageSourceServer;
  let base = '';
  let browser: Browser;
  /** Two people on the same account, each in a browser of their own. */
  let alice: Page;
  let bob: Page;
  const consoleErrors: string[] = [];
  let aliceKey = '';
  let bobKey = '';
  /** The cut-outs made for the queue, each a job of one result: job id by result id. */
  const jobOf = new Map<string, string>();
  const segmentation = new FakeSegmentationService();
  // Masks answered at a quarter of the photo's size come back soft: a cut-out that is not quite sure.
  segmentation.answerScale = 0.25;

  const api = async <T>(path: string, key: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${base}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...(init.headers as object) },
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const readJob = async (jobId: string) => (await api<JobBody>(`/api/v1/jobs/${jobId}`, aliceKey)).body;
  const finished = (jobId: string) =>
    readUntil(
      () => readJob(jobId),
      (read) => !['queued', 'processing'].includes(read.job.status),
      'the job to end',
      { timeoutMs: PAGE_WAIT_MS, intervalMs: 200 },
    );
  const reviewOf = async (resultId: string) => {
    const { results } = await readJob(jobOf.get(resultId) ?? '');
    return results.find((result) => result.id === resultId);
  };
  const cutOut = async (externalId: string) => {
    const created = await postJson(
      `${base}/api/v1/remove-background`,
      { input: [{ image_url: sources.url('/two-things.png'), external_id: externalId }] },
      { Authorization: `Bearer ${aliceKey}`, 'Idempotency-Key': `review-${externalId}` },
    );
    expect(created.status).toBe(202);
    const { results } = await finished((created.body.job as { id: string }).id);
    expect(results[0].status).toBe('completed');
    jobOf.set(results[0].id, (created.body.job as { id: string }).id);
    return results[0].id;
  };
  const openPage = async (key: string) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    watchPage(page, consoleErrors, PAGE_WAIT_MS);
    await page.goto(`${base}/console/#/sign-in`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    return page;
  };
  const openReview = async (page: Page) => {
    await page.getByRole('link', { name: /^Review/ }).click();
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
  };
  const card = (page: Page, resultId: string) => page.locator(`[data-result="${resultId}"]`);
  const shownIds = (page: Page) =>
    page.locator('[data-result]').evaluateAll((cards) => cards.map((element) => element.getAttribute('data-result')));
  const pendingCount = (page: Page, count: number) =>
    page.locator('[data-role=review-count]', { hasText: new RegExp(`^${count} pending$`) }).waitFor();
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    deployment = await Deployment.create('e2e-console-review');
    sources = await ImageSourceServer.start();
    sources.serve('/two-things.png', await fromFixture(twoThings()).png().toBuffer(), { contentType: 'image/png' });
    sources.route('/segment', segmentation.handle);
    base = await deployForConsole(deployment, ADMIN_TOKEN, sources.url('/segment'), { CAPACITY_ACCOUNT_SHARE: '1' });

    const account = await seedAccountOverHttp(base, ADMIN_TOKEN, { name: 'review', credits: 50, environment: 'live' });
    const issue = async (name: string) => {
      const issued = await postJson(
        `${base}/admin/v1/accounts/${account.accountId}/api-keys`,
        { environment: 'live', name },
        { Authorization: `Bearer ${ADMIN_TOKEN}` },
      );
      expect(issued.status).toBe(201);
      return issued.body.secret as string;
    };
    aliceKey = await issue('alice');
    bobKey = await issue('bob');

    // Each person gets a context of their own.
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await deployment?.close();
    await sources?.stop();
  });

  it('saves the account’s threshold from the page, and shows a refused one in the API’s words', async () => {
    alice = await openPage(aliceKey);
    await openReview(alice);
    const threshold = alice.getByLabel('Review threshold');
    const before = (await api<{ account: { review_threshold: number } }>('/api/v1/account', aliceKey)).body.account;
    const shown = await readUntil(
      () => threshold.inputValue(),
      (value) => value !== '',
      'the threshold to be read',
    );
    expect(Number(shown)).toBe(before.review_threshold);

    const refusal = await api<{ error: { message: string } }>('/api/v1/account', aliceKey, {
      method: 'PATCH',
      body: JSON.stringify({ review_threshold: 1.5 }),
    });
    expect(refusal.status).toBe(400);
    await threshold.fill('1.5');
    await alice.getByRole('button', { name: 'Save threshold' }).click();
    await alice.locator('[data-role=review-errors] [role=alert]').waitFor();
    expect(await alice.locator('[data-role=review-errors]').textContent()).toBe(refusal.body.error.message);

    // Every cut-out made from now on is flagged, whatever its uncertainty.
    await threshold.fill('0');
    await alice.getByRole('button', { name: 'Save threshold' }).click();
    await alice.getByText('Saved.').waitFor();
    const after = (await api<{ account: { review_threshold: number } }>('/api/v1/account', aliceKey)).body.account;
    expect(after.review_threshold).toBe(0);
    await shot(alice, 'threshold');
  });

  it('takes a decision made in one browser out of the other’s pending queue and count', async () => {
    const made: string[] = [];
    for (const name of ['first', 'second', 'third', 'fourth']) made.push(await cutOut(name));
    for (const resultId of made) expect((await reviewOf(resultId))?.needs_review).toBe(true);

    bob = await openPage(bobKey);
    await openReview(bob);
    await pendingCount(bob, 4);
    for (const resultId of made) await card(bob, resultId).waitFor();
    await alice.getByRole('button', { name: 'Refresh' }).click();
    const decided = made[0];
    const aliceCard = card(alice, decided);
    await aliceCard.locator('[data-role=review-note]').fill('Edges fine at full size.');
    await aliceCard.getByRole('button', { name: /^Accept / }).click();
    // The card updates from the decision's answer, and stays on alice's page, marked.
    await aliceCard.locator('[data-role=review-state]', { hasText: 'accepted' }).waitFor();
    await aliceCard.getByText('by alice').waitFor();
    await aliceCard.getByText('Note: Edges fine at full size.').waitFor();
    await shot(alice, 'decided');

    // Bob's page hears of it from the event stream: the card leaves his pending queue, the count drops.
    await card(bob, decided).waitFor({ state: 'detached' });
    await pendingCount(bob, 3);
    expect(await shownIds(bob)).toEqual(expect.not.arrayContaining([decided]));
    const review = (await reviewOf(decided))?.review;
    expect(review).toMatchObject({ state: 'accepted', decided_by: 'alice', note: 'Edges fine at full size.' });
    await shot(bob, 'after-alice-decided');
  });

  it('moves between cards with j and k and accepts the focused one with a', async () => {
    const ids = (await shownIds(bob)).filter((id): id is string => id !== null);
    expect(ids.length).toBe(3);
    const focused = () =>
      bob.evaluate(() => (globalThis as unknown as InPage).document.activeElement?.getAttribute('data-result') ?? null);
    await bob.locator('main h1').click();
    await bob.keyboard.press('j');
    expect(await focused()).toBe(ids[0]);
    await bob.keyboard.press('j');
    expect(await focused()).toBe(ids[1]);
    await bob.keyboard.press('ArrowDown');
    expect(await focused()).toBe(ids[2]);
    await bob.keyboard.press('k');
    expect(await focused()).toBe(ids[1]);
    await expect(card(bob, ids[1]).getAttribute('class')).resolves.toContain('current');
    expect(await bob.locator('.review-item.current').count()).toBe(1);

    // Typing in the note is typing: the letters stay in the note and decide nothing.
    await card(bob, ids[1]).locator('[data-role=review-note]').focus();
    await bob.keyboard.type('ar');
    expect(await card(bob, ids[1]).locator('[data-role=review-note]').inputValue()).toBe('ar');
    await card(bob, ids[1]).locator('[data-role=review-note]').fill('');
    await card(bob, ids[1]).focus();
    await shot(bob, 'keyboard');
    await bob.keyboard.press('a');
    await card(bob, ids[1]).locator('[data-role=review-state]', { hasText: 'accepted' }).waitFor();
    const review = (await reviewOf(ids[1]))?.review;
    expect(review).toMatchObject({ state: 'accepted', decided_by: 'bob', note: null });
    expect((await reviewOf(ids[0]))?.review?.state).toBe('pending');
    await pendingCount(bob, 2);
  });

  it('cuts a card out again from the page, and the API links the old result and the new both ways', async () => {
    await alice.getByRole('button', { name: 'Refresh' }).click();
    const ids = (await shownIds(alice)).filter((id): id is string => id !== null);
    const old = ids[0];
    const item = card(alice, old);
    const surface = item.locator('[data-role=review-original]');
    await surface.waitFor();
    await alice.waitForFunction(() =>
      [...(globalThis as unknown as InPage).document.images].every((image) => image.complete),
    );
    const box = (await surface.boundingBox())!;
    await alice.mouse.move(box.x + box.width * 0.01, box.y + box.height * 0.01);
    await alice.mouse.down();
    await alice.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5, { steps: 4 });
    await alice.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.99, { steps: 4 });
    await alice.mouse.up();
    // c cuts the focused card out again with the hints drawn on it.
    await item.focus();
    await alice.keyboard.press('c');
    await item.locator('[data-role=recut-result]').waitFor();
    await item.locator('[data-role=review-state]', { hasText: 'recut' }).waitFor();
    await item.locator('[data-role=replaced-by]').waitFor();
    await shot(alice, 'recut');

    const replaced = (await reviewOf(old))?.review;
    expect(replaced).toMatchObject({ state: 'recut', decided_by: 'alice', replaces_result_id: null });
    const newId = replaced?.replaced_by_result_id ?? '';
    expect(await item.locator('[data-role=replaced-by]').textContent()).toContain(newId);
    const href = (await item.locator('figure.redo a').getAttribute('href')) ?? '';
    const [, newJobId, linkedResult] = /^#\/jobs\/([^/]+)\/results\/([^/]+)$/.exec(href) ?? [];
    expect(linkedResult).toBe(newId);
    const { results } = await finished(newJobId);
    expect(results[0]).toMatchObject({ id: newId, status: 'completed' });
    expect(results[0].review).toMatchObject({ state: 'pending', replaces_result_id: old, replaced_by_result_id: null });
    // A recut result takes no decision, so its card offers none.
    expect(await item.getByRole('button', { name: /^Accept / }).isDisabled()).toBe(true);

    // Another browser, which did not make the re-cut, finds the new result through the API's link.
    await bob.getByLabel('State').selectOption('recut');
    const seen = card(bob, old);
    await seen.locator('[data-role=recut-result]').waitFor();
    expect(await seen.locator('figure.redo a').getAttribute('href')).toBe(`#/jobs/${newJobId}/results/${newId}`);
    await bob.getByLabel('State').selectOption('pending');
  });

  it('lists the queue by state, and pages it with Load more', async () => {
    await alice.getByLabel('State').selectOption('accepted');
    await alice.getByText('2 flagged cut-outs accepted.').waitFor();
    expect(await alice.locator('[data-role=review-state]').allTextContents()).toEqual(['accepted', 'accepted']);

    // Twenty more flagged cut-outs in one job: the queue shows a page of twenty, then the rest.
    const created = await postJson(
      `${base}/api/v1/remove-background`,
      { input: Array.from({ length: 20 }, () => ({ image_url: sources.url('/two-things.png') })) },
      { Authorization: `Bearer ${aliceKey}`, 'Idempotency-Key': 'review-batch' },
    );
    expect(created.status).toBe(202);
    await finished((created.body.job as { id: string }).id);
    const pending = (await api<{ pending: number }>('/api/v1/reviews/summary', aliceKey)).body.pending;
    expect(pending).toBeGreaterThan(20);
    await alice.getByLabel('State').selectOption('pending');
    await alice.getByText('20 flagged cut-outs pending, more below.').waitFor();
    expect(await alice.locator('[data-result]').count()).toBe(20);
    await alice.getByRole('button', { name: 'Load more' }).click();
    await alice.getByText(`${pending} flagged cut-outs pending.`).waitFor();
    expect(await alice.locator('[data-result]').count()).toBe(pending);
    expect(await alice.getByRole('button', { name: 'Load more' }).isHidden()).toBe(true);
    await pendingCount(alice, pending);
  });

  it('logged no console error or policy violation but the refusal the test asked for', () => {
    // Chromium logs every answer of 400 and above as an error: the refused threshold is the one provoked.
    const provoked = [
      `Failed to load resource: the server responded with a status of 400 (Bad Request) ${base}/api/v1/account`,
    ];
    expect(consoleErrors.filter((error) => !provoked.includes(error))).toEqual([]);
  });
});
