import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { runCli, startCli } from '../support/command-line';
import { cleanEnv, freePort, startProcess } from '../support/processes';
import { parseSamples, sumOf } from '../support/prometheus-text';
import { bearer, createTestApp, seedAccount, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';

/** Two creates and ten polls per key in a window of a few seconds, one active job: a run of three jobs meets them. */
const LOW_LIMITS = {
  RATE_LIMIT_WINDOW_SECONDS: '4',
  LIMIT_CREATES_PER_HOUR_KEY: '2',
  LIMIT_POLLS_PER_HOUR_KEY: '10',
  LIMIT_ACTIVE_JOBS_PER_KEY: '1',
};

const STATE_FILE = '.image-jobs-state.json';
/** The service's limits here: the photos drawn are far under them, one test's panorama and noise over them. */
const MAX_MEGAPIXELS = 2;
const MAX_BYTES = 300_000;

/** Product-like photos of distinct sizes and colours (distinct bytes), drawn with sharp. */
async function drawPhotos(folder: string, names: string[]): Promise<string[]> {
  const paths: string[] = [];
  for (const [n, name] of names.entries()) {
    const path = join(folder, name);
    const width = 120 + 10 * n;
    const product = Buffer.from(
      `<svg width="${width}" height="90"><rect width="100%" height="100%" fill="#f4f4f4"/>` +
        `<ellipse cx="${width / 2}" cy="45" rx="30" ry="25" fill="rgb(${40 * n},90,160)"/></svg>`,
    );
    await sharp(product).jpeg().toFile(path);
    paths.push(path);
  }
  return paths;
}

describe('image-jobs command line', () => {
  let t: TestApp;
  let base: string;
  let folder: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp(
      {
        ...LOW_LIMITS,
        PUBLIC_BASE_URL: base,
        SOURCE_MAX_MEGAPIXELS: String(MAX_MEGAPIXELS),
        SOURCE_MAX_BYTES: String(MAX_BYTES),
      },
      { role: ProcessRole.All },
    );
    await t.app.listen(port, '127.0.0.1');
  });

  afterAll(() => t?.close());

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'image-jobs-cli-'));
  });

  afterEach(() => rm(folder, { recursive: true, force: true }));

  const refusals = async () =>
    sumOf(
      parseSamples((await t.http().get('/metrics').set(bearer(TEST_ADMIN_TOKEN)).expect(200)).text),
      'imgjobs_http_request_duration_seconds_count',
      { status: '429' },
    );

  const ledger = async (accountId: string) => {
    const rows: Array<{ kind: string; amount: number; credits: number; count: number }> = await t.dataSource.query(
      `SELECT kind, sum(amount)::int AS amount, sum(credits)::int AS credits, count(*)::int AS count
         FROM credit_ledger WHERE account_id = $1 GROUP BY kind`,
      [accountId],
    );
    return Object.fromEntries(rows.map((row) => [row.kind, row]));
  };

  const countOf = async (table: 'jobs' | 'uploads', accountId: string): Promise<number> =>
    (await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [accountId]))[0].n;

  /**
   * An edit to 40 pixels wide of six photos drawn as `names`, with a live key of a new account,
   * in jobs of two, killed (SIGKILL) once it has created a job; `runAgain` runs the same command
   * to its end.
   */
  const editKilledAfterAJob = async (names: string[]) => {
    const account = await seedAccount(t, { credits: 100 });
    const photos = await drawPhotos(folder, names);
    const out = join(folder, 'out');
    const args = ['--api-key', account.liveKey, '--base-url', base, 'edit', ...photos, '--width', '40'];
    const command = [...args, '--out', out, '--batch-size', '2'];
    const first = startCli(command, {});
    try {
      await first.waitForOutput(/created job /);
      first.signal('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
    } finally {
      first.kill();
    }
    return { account, out, runAgain: () => runCli(command, {}) };
  };

  /** Each of six photos paid for once: three jobs of two, six captures, nothing released, the balance down by six. */
  const expectSixPaidOnce = async (accountId: string) => {
    expect(await countOf('jobs', accountId)).toBe(3);
    const entries = await ledger(accountId);
    expect(entries.reserve).toMatchObject({ count: 3, amount: -6 });
    expect(entries.capture).toMatchObject({ count: 6, credits: 6 });
    expect(entries.release).toBeUndefined();
    const [{ paid_credits }] = await t.dataSource.query(`SELECT paid_credits FROM accounts WHERE id = $1`, [accountId]);
    expect(paid_credits).toBe(94);
  };

  it('edits photos with a live key: results named after their sources, sized as asked, within the limits', async () => {
    const account = await seedAccount(t, { credits: 100 });
    const photos = await drawPhotos(folder, ['shoe.jpg', 'bag.jpg', 'hat.jpg', 'belt.jpg', 'scarf.jpg']);
    const out = join(folder, 'edited');
    const refusedBefore = await refusals();
    const { code, output } = await runCli(
      ['edit', ...photos, '--width', '64', '--height', '48', '--fit', 'cover', '--out', out, '--batch-size', '2'],
      { IMAGE_JOBS_API_KEY: account.liveKey, IMAGE_JOBS_BASE_URL: base },
    );
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toContain('summary: 5 written, 0 failed of 5; credits used: 5');
    // Three jobs and two creates per window: the run waited for the window rather than being refused.
    expect(output).toMatch(/waiting for the create limit, ETA \d+:\d\d/);
    expect(await refusals()).toBe(refusedBefore);
    expect((await readdir(out)).sort()).toEqual(
      ['bag.png', 'belt.png', 'hat.png', 'scarf.png', 'shoe.png', STATE_FILE].sort(),
    );
    for (const name of ['bag', 'belt', 'hat', 'scarf', 'shoe']) {
      const meta = await sharp(join(out, `${name}.png`)).metadata();
      expect({ name, format: meta.format, width: meta.width, height: meta.height }).toEqual({
        name,
        format: 'png',
        width: 64,
        height: 48,
      });
    }
    expect(await countOf('jobs', account.accountId)).toBe(3);
    const entries = await ledger(account.accountId);
    expect(entries.capture).toMatchObject({ count: 5, credits: 5 });
    expect(entries.reserve.amount).toBe(-5);
  });

  it('pays for nothing twice when run again after being killed in the middle', async () => {
    const { account, out, runAgain } = await editKilledAfterAJob([
      'a.jpg',
      'b.jpg',
      'c.jpg',
      'd.jpg',
      'e.jpg',
      'f.jpg',
    ]);
    const second = await runAgain();
    expect(second).toMatchObject({ code: 0 });
    expect(second.output).toMatch(/summary: \d written, 0 failed(, \d skipped \(written by an earlier run\))? of 6/);
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) {
      expect((await sharp(join(out, `${name}.png`)).metadata()).width).toBe(40);
    }
    await expectSixPaidOnce(account.accountId);
    // A third run finds everything written and sends nothing.
    const third = await runAgain();
    expect(third.output).toContain('summary: 0 written, 0 failed, 6 skipped (written by an earlier run) of 6');
    expect(await countOf('jobs', account.accountId)).toBe(3);
  });

  it('fails each file that cannot be sent alone, by path and reason, and writes and charges the rest', async () => {
    const account = await seedAccount(t, { credits: 100 });
    await drawPhotos(folder, ['anorak.jpg', 'boot.jpg', 'cap.jpg']);
    const bad = {
      // Any user can make these: a link to a file that is gone, a folder named like a photo.
      dangling: join(folder, 'gone.jpg'),
      folderNamedLikeAPhoto: join(folder, 'album.jpg'),
      notAnImage: join(folder, 'notes.jpg'),
      empty: join(folder, 'empty.png'),
      overPixelLimit: join(folder, 'panorama.png'),
      overByteLimit: join(folder, 'noise.png'),
      // Unreadable by permission only when the test does not run as root, who reads it anyway.
      locked: join(folder, 'locked.jpg'),
    };
    await symlink(join(folder, 'deleted-long-ago.jpg'), bad.dangling);
    await mkdir(bad.folderNamedLikeAPhoto);
    await writeFile(bad.notAnImage, 'a shopping list, not a photo\n');
    await writeFile(bad.empty, '');
    await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#ffffff' } })
      .png({ compressionLevel: 9 })
      .toFile(bad.overPixelLimit);
    // Random pixels do not compress: 0.16 megapixels, but more bytes than the service takes.
    await sharp(randomBytes(400 * 400 * 3), { raw: { width: 400, height: 400, channels: 3 } })
      .png()
      .toFile(bad.overByteLimit);
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) {
      await drawPhotos(folder, ['locked.jpg']);
      await chmod(bad.locked, 0o000);
    }
    const out = join(folder, 'out');
    const { code, output } = await runCli(['edit', folder, '--width', '50', '--out', out], {
      IMAGE_JOBS_API_KEY: account.liveKey,
      IMAGE_JOBS_BASE_URL: base,
    });

    const expectedFailures: Array<[string, RegExp]> = [
      [bad.dangling, /cannot be read: no such file/],
      [bad.folderNamedLikeAPhoto, /cannot be read: it is a folder/],
      [bad.notAnImage, /not an image/],
      [bad.empty, /empty file/],
      [bad.overPixelLimit, /payload_too_large: The image is 2000 x 1500 pixels; at most 2 megapixels/],
      [bad.overByteLimit, /payload_too_large: Uploads are limited to 300000 bytes/],
      ...(asRoot ? [] : ([[bad.locked, /cannot be read: permission denied/]] as Array<[string, RegExp]>)),
    ];
    const total = 3 + expectedFailures.length;
    expect(code).toBe(1);
    expect(output).toContain(`summary: 3 written, ${expectedFailures.length} failed of ${total}; credits used: 3`);
    const failedLines = output.split('\n').filter((line) => /^ {2}\S/.test(line));
    expect(failedLines).toHaveLength(expectedFailures.length);
    for (const [path, reason] of expectedFailures) {
      const line = failedLines.find((candidate) => candidate.startsWith(`  ${path}: `));
      expect({ path, line }).toEqual({ path, line: expect.stringMatching(reason) });
    }
    // Each good photo written, under its own name; nothing for a bad file.
    expect((await readdir(out)).sort()).toEqual(['anorak.png', 'boot.png', 'cap.png', STATE_FILE].sort());
    for (const name of ['anorak', 'boot', 'cap']) {
      expect((await sharp(join(out, `${name}.png`)).metadata()).width).toBe(50);
    }
    // One job of the three good photos: three reserved, three captured, nothing for the others.
    expect(await countOf('jobs', account.accountId)).toBe(1);
    const entries = await ledger(account.accountId);
    expect(entries.reserve).toMatchObject({ count: 1, amount: -3 });
    expect(entries.capture).toMatchObject({ count: 3, credits: 3 });
    expect(entries.release).toBeUndefined();
    if (!asRoot) await chmod(bad.locked, 0o644);
  });

  it('finishes when run again after being killed and losing its state file, paying for each photo once', async () => {
    const { account, out, runAgain } = await editKilledAfterAJob([
      'p.jpg',
      'q.jpg',
      'r.jpg',
      's.jpg',
      't.jpg',
      'u.jpg',
    ]);
    await rm(join(out, STATE_FILE));
    const second = await runAgain();
    expect({ code: second.code, output: second.output }).toMatchObject({ code: 0 });
    expect(second.output).toContain('summary: 6 written, 0 failed of 6; credits used: 6');
    for (const name of ['p', 'q', 'r', 's', 't', 'u']) {
      expect((await sharp(join(out, `${name}.png`)).metadata()).width).toBe(40);
    }
    // The uploads and the first job were the first run's, answered again: six uploads, three jobs, six credits.
    expect(await countOf('uploads', account.accountId)).toBe(6);
    await expectSixPaidOnce(account.accountId);
  });

  it('--dry-run prints the price from the catalog and creates nothing, not even an upload', async () => {
    const account = await seedAccount(t, { credits: 100 });
    const photos = await drawPhotos(folder, ['one.jpg', 'two.jpg', 'three.jpg']);
    const out = join(folder, 'never');
    const { code, output } = await runCli(
      ['remove-background', ...photos, '--out', out, '--dry-run', '--api-key', account.liveKey, '--base-url', base],
      {},
    );
    expect(code).toBe(0);
    expect(output).toContain('dry run: remove-background on 3 images, in 1 job');
    expect(output).toContain('price: 1 credit per image, pricing version 1 (remove_background in GET /api/v1/tools)');
    expect(output).toContain('total: 3 credits');
    expect(await countOf('jobs', account.accountId)).toBe(0);
    expect(await countOf('uploads', account.accountId)).toBe(0);
    expect(existsSync(out)).toBe(false);
    // A preset is priced at its operation's current price, as GET /product-photo-presets lists it.
    await t.dataSource.query(
      `INSERT INTO prices (cost_key, pricing_version, credits) VALUES ('product_photo.marketplace_clean', 2, 4)`,
    );
    const preset = await runCli(['preset', 'amazon_main_image', ...photos, '--out', out, '--dry-run'], {
      IMAGE_JOBS_BASE_URL: base,
    });
    expect(preset.output).toContain(
      'price: 4 credits per image, pricing version 2 ' +
        '(product_photo.marketplace_clean in GET /api/v1/product-photo-presets)',
    );
    expect(preset.output).toContain('total: 12 credits');
  });

  it('runs end to end with the sandbox key: a failed result is reported and the exit code is 1', async () => {
    const account = await seedAccount(t, { credits: 100 });
    const photos = await drawPhotos(folder, ['mug.jpg', 'sandbox_fail_lamp.jpg', 'cup.jpg']);
    const out = join(folder, 'cutouts');
    const { code, output } = await runCli(['remove-background', ...photos, '--out', out], {
      IMAGE_JOBS_API_KEY: account.sandboxKey,
      IMAGE_JOBS_BASE_URL: base,
    });
    expect(code).toBe(1);
    expect(output).toContain('summary: 2 written, 1 failed of 3; credits used: 0');
    expect(output).toMatch(/sandbox_fail_lamp\.png: sandbox_simulated_failure/);
    for (const name of ['mug', 'cup']) expect((await sharp(join(out, `${name}.png`)).metadata()).format).toBe('png');
    expect(existsSync(join(out, 'sandbox_fail_lamp.png'))).toBe(false);
    expect(await ledger(account.accountId)).not.toHaveProperty('reserve');
  });

  it('runs a product photo preset with the sandbox key, writing the format the preset makes', async () => {
    const account = await seedAccount(t, { credits: 100 });
    const photos = await drawPhotos(folder, ['lamp.jpg', 'vase.jpg']);
    const out = join(folder, 'amazon');
    const { code, output } = await runCli(['preset', 'amazon_main_image', ...photos, '--out', out], {
      IMAGE_JOBS_API_KEY: account.sandboxKey,
      IMAGE_JOBS_BASE_URL: base,
    });
    expect({ code, output }).toMatchObject({ code: 0 });
    for (const name of ['lamp', 'vase']) expect((await sharp(join(out, `${name}.jpg`)).metadata()).format).toBe('jpeg');
  });

  it('refuses options that cannot work together before anything is sent (exit code 2)', async () => {
    const account = await seedAccount(t, { credits: 100 });
    const photos = await drawPhotos(folder, ['x.jpg']);
    const { code, output } = await runCli(
      ['edit', ...photos, '--out', join(folder, 'o'), '--fit', 'cover', '--width', '10'],
      { IMAGE_JOBS_API_KEY: account.liveKey, IMAGE_JOBS_BASE_URL: base },
    );
    expect(code).toBe(2);
    expect(output).toContain('--fit applies when both --width and --height are given');
    expect(await countOf('uploads', account.accountId)).toBe(0);
  });

  it('writes avif and lossless webp with the sandbox key, refusing --lossless with another format', async () => {
    const account = await seedAccount(t, { credits: 100 });
    const photos = await drawPhotos(folder, ['kettle.jpg']);
    const env = { IMAGE_JOBS_API_KEY: account.sandboxKey, IMAGE_JOBS_BASE_URL: base };
    const avifOut = join(folder, 'avif');
    const avif = await runCli(
      ['remove-background', ...photos, '--format', 'avif', '--quality', '50', '--out', avifOut],
      env,
    );
    expect(avif).toMatchObject({ code: 0 });
    expect(await sharp(join(avifOut, 'kettle.avif')).metadata()).toMatchObject({ format: 'heif', compression: 'av1' });
    const webpOut = join(folder, 'lossless');
    const webp = await runCli(
      ['remove-background', ...photos, '--format', 'webp', '--lossless', '--out', webpOut],
      env,
    );
    expect(webp).toMatchObject({ code: 0 });
    expect((await sharp(join(webpOut, 'kettle.webp')).metadata()).format).toBe('webp');
    const refused = await runCli(['edit', ...photos, '--width', '10', '--lossless', '--out', join(folder, 'x')], env);
    expect(refused.code).toBe(2);
    expect(refused.output).toContain('--lossless applies to --format webp only');
  });

  it('places the product on a canvas with --placement-size, --padding, --align and --scale', async () => {
    const account = await seedAccount(t, { credits: 100 });
    const photos = await drawPhotos(folder, ['kettle.jpg']);
    const env = { IMAGE_JOBS_API_KEY: account.sandboxKey, IMAGE_JOBS_BASE_URL: base };
    const out = join(folder, 'placed');
    const placed = await runCli(
      [
        'remove-background',
        ...photos,
        '--placement-size',
        '321x123',
        '--padding',
        '5%,4,5%,4',
        '--align',
        'center,bottom',
        '--scale',
        '90%',
        '--shadow-in-box',
        '--out',
        out,
      ],
      env,
    );
    expect(placed).toMatchObject({ code: 0 });
    // The sandbox answers with the canvas's size.
    expect(await sharp(join(out, 'kettle.png')).metadata()).toMatchObject({ width: 321, height: 123 });
    const refused = await runCli(
      ['remove-background', ...photos, '--scale', 'fit', '--crop-to-subject', '--out', join(folder, 'y')],
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.output).toContain('--crop-to-subject and --margin frame the result as placement does');
  });

  it('offers --existing-alpha use: priced from the catalog, run in the sandbox, refused on a plain edit', async () => {
    const account = await seedAccount(t, { credits: 100 });
    const cutout = join(folder, 'cutout.png');
    await sharp(
      Buffer.from(
        '<svg width="120" height="90"><ellipse cx="60" cy="45" rx="35" ry="30" fill="rgb(200,60,40)"/></svg>',
      ),
    )
      .png()
      .toFile(cutout);
    const env = { IMAGE_JOBS_API_KEY: account.liveKey, IMAGE_JOBS_BASE_URL: base };
    const quote = await runCli(
      ['remove-background', cutout, '--existing-alpha', 'use', '--out', join(folder, 'q'), '--dry-run'],
      env,
    );
    expect(quote.code).toBe(0);
    expect(quote.output).toContain(
      'price: 1 credit per image, pricing version 1 (remove_background with existing_alpha use in GET /api/v1/tools)',
    );
    const out = join(folder, 'own-alpha');
    const run = await runCli(['remove-background', cutout, '--existing-alpha', 'use', '--out', out], {
      ...env,
      IMAGE_JOBS_API_KEY: account.sandboxKey,
    });
    expect(run).toMatchObject({ code: 0 });
    expect((await sharp(join(out, 'cutout.png')).metadata()).format).toBe('png');
    const refused = await runCli(['edit', cutout, '--width', '10', '--existing-alpha', 'use', '--out', out], env);
    expect(refused.code).toBe(2);
    expect(refused.output).toContain('--existing-alpha use needs --background transparent, white, color or image');
  });

  it('offers --segmentation-model: priced from the catalog, run in the sandbox, an unknown name refused', async () => {
    const account = await seedAccount(t, { credits: 100 });
    await t.dataSource.query(`INSERT INTO prices (cost_key, pricing_version, credits) VALUES ($1, 1, 4)`, [
      'remove_background.model.isnet-general-use',
    ]);
    const photo = join(folder, 'model-photo.png');
    await sharp({ create: { width: 120, height: 90, channels: 3, background: { r: 200, g: 60, b: 40 } } })
      .png()
      .toFile(photo);
    const env = { IMAGE_JOBS_API_KEY: account.liveKey, IMAGE_JOBS_BASE_URL: base };
    const model = ['--segmentation-model', 'isnet-general-use'];
    const quote = await runCli(['remove-background', photo, ...model, '--out', join(folder, 'mq'), '--dry-run'], env);
    expect(quote.code).toBe(0);
    expect(quote.output).toContain(
      'price: 4 credits per image, pricing version 1 (remove_background with segmentation_model isnet-general-use in ' +
        'GET /api/v1/tools)',
    );
    const out = join(folder, 'model-out');
    const sandbox = { ...env, IMAGE_JOBS_API_KEY: account.sandboxKey };
    expect(await runCli(['remove-background', photo, ...model, '--out', out], sandbox)).toMatchObject({ code: 0 });
    expect((await sharp(join(out, 'model-photo.png')).metadata()).format).toBe('png');
    const refused = await runCli(
      ['remove-background', photo, '--segmentation-model', 'birefnet', '--out', join(folder, 'mr')],
      sandbox,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('this deployment has no model birefnet');
    await t.dataSource.query(`DELETE FROM prices WHERE cost_key = 'remove_background.model.isnet-general-use'`);
  });

  it('is installed as the image-jobs command, built, with --help for every command', async () => {
    // node_modules/.bin/image-jobs, linked by npm ci to the package's bin, which runs the build (npm test builds).
    const command = join('node_modules', '.bin', 'image-jobs');
    for (const [args, expected] of [
      [['--help'], /Usage: image-jobs .*remove-background.*edit.*preset.*presets/s],
      [['remove-background', '--help'], /Usage: image-jobs remove-background .*--out/s],
      [['edit', '--help'], /Usage: image-jobs edit .*--width.*--light.*--upscale/s],
      [['preset', '--help'], /Usage: image-jobs preset .*<preset>/s],
    ] as const) {
      const run = startProcess(command, [...args], cleanEnv({}));
      expect(await run.exited).toBe(0);
      expect(run.output()).toMatch(expected);
    }
  });
});
