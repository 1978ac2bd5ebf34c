import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Deployment } from './deployment';
import { paint, type RawFixture, type Rgb } from './image-fixtures';
import { GENEROUS_LIMITS } from './limits';
import { cleanEnv } from './processes';

/**
 * The console specs' photo, 320 x 240: the product, an orange disc centred at (100, 120), and a
 * prop, a green square over x 215..285, y 85..155, on a grey-blue backdrop. The fake segmentation
 * service keys out the corner's colour, so without hints a cut-out keeps both, and is unsure.
 */
export const TWO_THINGS = { width: 320, height: 240 };
export const PRODUCT_ORANGE: Rgb = [240, 140, 30];
export const BACKDROP: Rgb = [90, 100, 120];
export const inDisc = (x: number, y: number) => (x - 100) ** 2 + (y - 120) ** 2 <= 50 ** 2;
export const inSquare = (x: number, y: number) => x >= 215 && x <= 285 && y >= 85 && y <= 155;
export const twoThings = (): RawFixture =>
  paint(TWO_THINGS.width, TWO_THINGS.height, (x, y) =>
    inDisc(x, y) ? PRODUCT_ORANGE : inSquare(x, y) ? [40, 170, 60] : BACKDROP,
  );

/**
 * The built service for a console spec, on a deployment of its own (`e2e-<name>`): an API and a
 * worker with generous limits, loopback sources allowed, cut-outs by the remote segmenter at
 * `segmenterUrl`, and `settings` on top. The deployment is handed over before the service starts,
 * so the spec's afterAll removes it whatever happened.
 */
export async function deployForConsole(
  deployment: Deployment,
  adminToken: string,
  segmenterUrl: string,
  settings: Record<string, string> = {},
): Promise<string> {
  const { base } = await deployment.startApiAndWorker(
    cleanEnv({
      ...GENEROUS_LIMITS,
      ADMIN_TOKEN: adminToken,
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      STORAGE_DIR: deployment.storageDir,
      SEGMENTER: 'remote',
      SEGMENTER_URL: segmenterUrl,
      ...settings,
    }),
  );
  return base;
}

/** The system's Chromium, never a downloaded one, headless and without anything that calls home. */
const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
const VIEWPORT = { width: 1280, height: 900 };

/** A browser for pages of their own contexts (`newContext`), each person in one. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch(CHROMIUM);
}

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** One page in a browser with a fresh profile of its own. */
export async function openBrowser({ acceptDownloads = false } = {}): Promise<ConsoleBrowser> {
  const profileDir = mkdtempSync(join(tmpdir(), 'imgjobs-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profileDir, {
      ...CHROMIUM,
      acceptDownloads,
      viewport: VIEWPORT,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    return {
      context,
      page,
      close: async () => {
        await context.close();
        rmSync(profileDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profileDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Gives the page `waitMs` for what it waits for, and records in `errors` every error it logs
 * (`<text> <url>`: Chromium logs each answer of 400 and above so) and every uncaught exception;
 * its warnings too (`warning: <text> <url>`) when `warnings` is set.
 */
export function watchPage(page: Page, errors: string[], waitMs: number, { warnings = false } = {}): void {
  page.setDefaultTimeout(waitMs);
  page.on('console', (message) => {
    const where = `${message.text()} ${message.location().url}`;
    if (message.type() === 'error') errors.push(where);
    else if (warnings && message.type() === 'warning') errors.push(`warning: ${where}`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
}
