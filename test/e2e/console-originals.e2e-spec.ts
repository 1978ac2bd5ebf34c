import { Client } from 'pg';
import type { Page } from 'playwright-core';
import {
  deployForConsole,
  openBrowser,
  PRODUCT_ORANGE,
  TWO_THINGS,
  twoThings,
  watchPage,
  type ConsoleBrowser,
} from '../support/console-e2e';
import { Deployment } from '../support/deployment';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { fromFixture, type Rgb } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { postJson, seedAccountOverHttp } from '../support/service-http';
import { readUntil } from '../support/waiting';

const ADMIN_TOKEN = 'console-originals-admin-token-0123456789';

interface ResultBody {
  id: string;
  status: string;
  uncertainty: number | null;
  source_preview_url: string | null;
}

/** What the page says of one of its images: loaded or not, its size, its address and the colour at a point. */
interface ShownImage {
  complete: boolean;
  width: number;
  height: number;
  src: string;
  colour: number[];
}

/** The page's globals, which this file's types do not describe. */
interface PageGlobals {
  document: {
    querySelector(selector: string): unknown;
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        drawImage(image: unknown, x: number, y: number): void;
        getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
      };
    };
    addEventListener(type: string, listener: (event: { blockedURI: string; violatedDirective: string }) => void): void;
  };
  cspViolations: string[];
}

const PAGE_WAIT_MS = 60_000;
jest.setTimeout(4 * PAGE_WAIT_MS);

describe('the console shows originals from the service, not from the source', () => {
  let deployment: Deployment;
  let sources: ImageSourceServer;
  let segmenter: ImageSourceServer;
  let base = '';
  let browser: ConsoleBrowser;
  let page: Page;
  const consoleErrors: string[] = [];
  let liveKey = '';
  let jobId = '';
  let result: ResultBody;
  const segmentation = new FakeSegmentationService();
  // Masks answered at a quarter of the photo's size come back soft: a cut-out that is not quite sure.
  segmentation.answerScale = 0.25;

  const readJob = (id: string) =>
    fetch(`${base}/api/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${liveKey}` } }).then(
      (response) => response.json() as Promise<{ job: { status: string }; results: ResultBody[] }>,
    );

  /** An image's state in the page, and the colour of its pixel at (x, y) read through a canvas. */
  const shown = (selector: string, x: number, y: number) =>
    page.evaluate(
      ([selector, x, y]) => {
        const { document } = globalThis as unknown as PageGlobals;
        const image = document.querySelector(selector) as {
          complete: boolean;
          naturalWidth: number;
          naturalHeight: number;
          src: string;
        };
        const canvas = document.createElement('canvas');
        canvas.width = image.naturalWidth;
        canvas.height = image.naturalHeight;
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        return {
          complete: image.complete,
          width: image.naturalWidth,
          height: image.naturalHeight,
          src: image.src,
          colour: Array.from(context.getImageData(x, y, 1, 1).data),
        } satisfies ShownImage;
      },
      [selector, x, y] as const,
    );

  const violations = () => page.evaluate(() => [...(globalThis as unknown as PageGlobals).cspViolations]);
  const pathOf = (url: string) => new URL(url).pathname;
  const near = (colour: number[], expected: Rgb) => expected.every((channel, i) => Math.abs(colour[i] - channel) <= 8);

  beforeAll(async () => {
    deployment = await Deployment.create('e2e-console-originals');
    sources = await ImageSourceServer.start();
    sources.serve('/two-things.png', await fromFixture(twoThings()).png().toBuffer(), { contentType: 'image/png' });
    segmenter = await ImageSourceServer.start();
    segmenter.route('/segment', segmentation.handle);
    base = await deployForConsole(deployment, ADMIN_TOKEN, segmenter.url('/segment'), { CAPACITY_ACCOUNT_SHARE: '1' });

    const account = await seedAccountOverHttp(base, ADMIN_TOKEN, {
      name: 'originals',
      credits: 20,
      environment: 'sandbox',
    });
    const live = await postJson(
      `${base}/admin/v1/accounts/${account.accountId}/api-keys`,
      { environment: 'live' },
      { Authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    liveKey = live.body.secret as string;
    // Every cut-out of the account is flagged for review, so this one is on the review page.
    const threshold = await fetch(`${base}/api/v1/account`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ review_threshold: 0 }),
    });
    expect(threshold.status).toBe(200);

    // A live cut-out of an http:// source, which the console's policy would not let it show.
    const created = await postJson(
      `${base}/api/v1/remove-background`,
      { input: [{ image_url: sources.url('/two-things.png'), external_id: 'two-things' }] },
      { Authorization: `Bearer ${liveKey}`, 'Idempotency-Key': 'console-originals-1' },
    );
    expect(created.status).toBe(202);
    jobId = (created.body.job as { id: string }).id;
    const done = await readUntil(
      () => readJob(jobId),
      (read) => !['queued', 'processing'].includes(read.job.status),
      'the job to end',
      { timeoutMs: PAGE_WAIT_MS, intervalMs: 200 },
    );
    result = done.results[0];
    expect(result).toMatchObject({ status: 'completed', source_preview_url: expect.any(String) });
    expect(result.uncertainty).toEqual(expect.any(Number));
    // The source is gone before the console is opened: only the service's preview can show it.
    await sources.stop();

    browser = await openBrowser();
    page = browser.page;
    // Every Content-Security-Policy violation of every page, recorded before the console's script runs.
    await browser.context.addInitScript(() => {
      const page = globalThis as unknown as PageGlobals;
      page.cspViolations = [];
      page.document.addEventListener('securitypolicyviolation', (event) =>
        page.cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    watchPage(page, consoleErrors, PAGE_WAIT_MS);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await deployment?.close();
    await segmenter?.stop();
  });

  const signIn = async () => {
    await page.goto(`${base}/console/#/sign-in`);
    await page.getByLabel('API key').fill(liveKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  };

  it('allows images from the service only', async () => {
    const policy = (await fetch(`${base}/console/`)).headers.get('content-security-policy') ?? '';
    expect(policy).toContain(`img-src 'self' blob: data: ${base};`);
    expect(policy).not.toContain('https:');
  });

  it('shows the original on the result page from its preview, after the source went away', async () => {
    await signIn();
    await page.goto(`${base}/console/#/jobs/${jobId}/results/${result.id}`);
    await page.locator('[data-role=compare-before]').waitFor();
    await page.waitForFunction(() =>
      ['[data-role=compare-before]', '[data-role=original]'].every((selector) => {
        const image = (globalThis as unknown as PageGlobals).document.querySelector(selector) as {
          complete: boolean;
          naturalWidth: number;
        } | null;
        return image !== null && image.complete && image.naturalWidth > 0;
      }),
    );
    for (const selector of ['[data-role=compare-before]', '[data-role=original]']) {
      const original = await shown(selector, 100, 120);
      expect({ complete: original.complete, width: original.width, height: original.height }).toEqual({
        complete: true,
        width: TWO_THINGS.width,
        height: TWO_THINGS.height,
      });
      expect(pathOf(original.src)).toBe(pathOf(result.source_preview_url as string));
      expect(near(original.colour, PRODUCT_ORANGE)).toBe(true);
    }
    expect(await violations()).toEqual([]);
  });

  it('shows the original on the review card from its preview', async () => {
    await page.getByRole('link', { name: 'Review' }).click();
    const card = `[data-result="${result.id}"] [data-role=review-original]`;
    await page.locator(card).waitFor();
    await page.waitForFunction((selector) => {
      const image = (globalThis as unknown as PageGlobals).document.querySelector(selector) as {
        complete: boolean;
        naturalWidth: number;
      } | null;
      return image !== null && image.complete && image.naturalWidth > 0;
    }, card);
    const original = await shown(card, 100, 120);
    expect({ width: original.width, height: original.height }).toEqual(TWO_THINGS);
    expect(pathOf(original.src)).toBe(pathOf(result.source_preview_url as string));
    expect(near(original.colour, PRODUCT_ORANGE)).toBe(true);
    expect(await violations()).toEqual([]);
  });

  it('says the original is not available where a result has no preview', async () => {
    const client = new Client({ connectionString: deployment.databaseUrl });
    await client.connect();
    try {
      await client.query(`UPDATE job_results SET source_preview_key = NULL WHERE id = $1`, [result.id]);
    } finally {
      await client.end();
    }
    // A reload forgets the job details the tab had read.
    await page.goto(`${base}/console/#/jobs/${jobId}/results/${result.id}`);
    await page.reload();
    await page.locator('[data-role=compare-before-missing]').waitFor();
    expect(await page.locator('[data-role=original-missing]').textContent()).toBe('Original not available');
    expect(await page.locator('[data-role=compare-before], [data-role=original]').count()).toBe(0);
    expect(await violations()).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
