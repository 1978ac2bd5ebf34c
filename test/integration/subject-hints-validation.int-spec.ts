import { expectError } from '../support/http-errors';
import { creditTotals, idempotencyKey, withFakeProviderForEveryTool, writtenRows } from '../support/jobs';
import { UNREACHABLE_CREATE_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * Subject hints and mask output are refused when wrong, at the field's path, in the contract's
 * envelope, before anything is written: no job, no results, no credits, no idempotency record.
 * Sandbox keys are validated like live ones; live keys (through fake runners, never run here)
 * make a missed refusal show as a reservation.
 */

type Body = Record<string, unknown>;
type Hints = Record<string, unknown>;

const REGION = { left: 0.1, top: 0.05, right: 0.7, bottom: 0.95 };
const GOOD_HINTS: Hints = { region: REGION, keep_points: [{ x: 0.4, y: 0.5 }] };

/**
 * What is wrong with the second image's hints, the hints sent, and the path under `<images>[1].subject_hints` the 400
 * names.
 */
const BAD_HINTS: Array<[what: string, hints: unknown, path: string]> = [
  ['region.left below 0', { region: { ...REGION, left: -0.1 } }, '.region.left'],
  ['region.right above 1', { region: { ...REGION, right: 1.5 } }, '.region.right'],
  ['region.top a string', { region: { ...REGION, top: '0.1' } }, '.region.top'],
  ['region.bottom missing', { region: { left: 0.1, top: 0.1, right: 0.5 } }, '.region.bottom'],
  ['region.left null', { region: { ...REGION, left: null } }, '.region.left'],
  ['an empty box: right left of left', { region: { ...REGION, left: 0.6, right: 0.2 } }, '.region.right'],
  ['an empty box: right equal to left', { region: { ...REGION, left: 0.4, right: 0.4 } }, '.region.right'],
  ['an empty box: bottom above top', { region: { ...REGION, top: 0.8, bottom: 0.3 } }, '.region.bottom'],
  ['a keep point x above 1', { keep_points: [{ x: 1.2, y: 0.5 }] }, '.keep_points[0].x'],
  ['a keep point y below 0', { keep_points: [{ x: 0.5, y: -0.01 }] }, '.keep_points[0].y'],
  ['a keep point x a string', { keep_points: [{ x: 'left', y: 0.5 }] }, '.keep_points[0].x'],
  ['a keep point missing y', { keep_points: [{ x: 0.5 }] }, '.keep_points[0].y'],
  ['11 keep points (max 10)', { keep_points: Array.from({ length: 11 }, () => ({ x: 0.5, y: 0.5 })) }, '.keep_points'],
  [
    'a keep point outside the region',
    {
      region: REGION,
      keep_points: [
        { x: 0.4, y: 0.5 },
        { x: 0.9, y: 0.5 },
      ],
    },
    '.keep_points[1]',
  ],
  ['an unknown member of subject_hints', { ...GOOD_HINTS, roi: REGION }, '.roi'],
  ['an unknown member of region', { region: { ...REGION, width: 0.6 } }, '.region.width'],
  ['an unknown member of a keep point', { keep_points: [{ x: 0.4, y: 0.5, label: 'shoe' }] }, '.keep_points[0].label'],
  ['subject_hints a string', 'the shoe on the left', ''],
  ['subject_hints an array', [GOOD_HINTS], ''],
  ['region a number', { region: 0.5 }, '.region'],
  ['region an array', { region: [] }, '.region'],
  ['keep_points an object', { keep_points: { x: 0.4, y: 0.5 } }, '.keep_points'],
  ['a keep point a number', { keep_points: [0.4] }, '.keep_points[0]'],
  ['an empty subject_hints object', {}, ''],
  ['keep_points empty and no region', { keep_points: [] }, ''],
];

interface Endpoint {
  path: string;
  images: 'input' | 'images';
  /** A valid body whose images are `images`. */
  body: (images: Body[]) => Body;
  image: (i: number) => Body;
}

const ENDPOINTS: Endpoint[] = [
  {
    path: '/api/v1/remove-background',
    images: 'input',
    body: (input) => ({ input }),
    image: (i) => ({ image_url: `https://images.example.com/p/${i}.jpg`, external_id: `item-${i}` }),
  },
  {
    path: '/api/v1/image/edit',
    images: 'input',
    body: (input) => ({ input, operations: { background: { type: 'white' } } }),
    image: (i) => ({ image_url: `https://images.example.com/p/${i}.jpg`, external_id: `item-${i}` }),
  },
  {
    path: '/api/v1/product-photo-jobs',
    images: 'images',
    body: (images) => ({ images, operation: 'marketplace_clean' }),
    image: (i) => ({ source_url: `https://images.example.com/p/${i}.jpg`, external_id: `sku-${i}` }),
  },
];

describe('subject hints and mask output: refusals that write nothing', () => {
  let t: TestApp;
  let account: SeededAccount;

  beforeAll(async () => {
    // Every tool live through a fake runner, so the live key is admitted and charged like in production.
    t = await createTestApp(UNREACHABLE_CREATE_LIMITS, { override: withFakeProviderForEveryTool() });
    account = await seedAccount(t, { credits: 100_000 });
  });
  afterAll(() => t.close());

  describe.each([
    ['live', (a: SeededAccount) => a.liveKey],
    ['sandbox', (a: SeededAccount) => a.sandboxKey],
  ])('with a %s key', (environment, keyOf) => {
    const post = (path: string, body: Body, key: string) =>
      t
        .http()
        .post(path)
        .set(bearer(keyOf(account)))
        .set('Idempotency-Key', key)
        .send(body);

    /** Sends `body`, expects 400 `invalid_request` naming exactly `paths`, and proves nothing was written. */
    async function expectRefused(path: string, body: Body, key: string, paths: string[]): Promise<void> {
      const rows = await writtenRows(t);
      const credits = await creditTotals(t, account.accountId);
      const res = await post(path, body, key);
      expectError(res, 400, 'invalid_request');
      const errors: Array<{ path: string; message: string }> = res.body.error.details.errors;
      for (const error of errors) expect(error.message).toEqual(expect.any(String));
      expect([...new Set(errors.map((error) => error.path))].sort()).toEqual([...paths].sort());
      expect(await writtenRows(t)).toEqual(rows);
      expect(await creditTotals(t, account.accountId)).toEqual(credits);
    }

    /** Sends `body` and expects a job of `results` results, charged when the key is live. */
    async function expectAccepted(path: string, body: Body, key: string, results: number): Promise<void> {
      const rows = await writtenRows(t);
      const live = environment === 'live';
      const res = await post(path, body, key);
      expect(res.status).toBe(202);
      expect(res.body.job.credits_reserved > 0).toBe(live);
      expect(await writtenRows(t)).toEqual({
        jobs: rows.jobs + 1,
        results: rows.results + results,
        ledger: rows.ledger + (live ? 1 : 0),
        keys: rows.keys + 1,
      });
    }

    describe.each(ENDPOINTS)('POST $path', ({ path, images, body, image }) => {
      // Every refusal uses one key; the accepted request then takes it, proving no record was kept.
      const refusedKey = idempotencyKey();
      const withHints = (hints: unknown) =>
        body([
          { ...image(0), subject_hints: GOOD_HINTS },
          { ...image(1), subject_hints: hints },
        ]);

      it.each(BAD_HINTS)('refuses %s', async (_what, hints, path_) => {
        await expectRefused(path, withHints(hints), refusedKey, [`${images}[1].subject_hints${path_}`]);
      });

      it(
        'accepts hints at their bounds (a region of the whole image, ' +
          'points on its corners and edges), with the key every refusal used',
        async () => {
          const edges = {
            region: { left: 0, top: 0, right: 1, bottom: 1 },
            keep_points: [{ x: 0, y: 0 }, { x: 1, y: 1 }, ...Array.from({ length: 8 }, () => ({ x: 0.5, y: 1 }))],
          };
          await expectAccepted(path, withHints(edges), refusedKey, 2);
        },
      );

      it('accepts a region alone, keep points alone, and null for no hints', async () => {
        await expectAccepted(
          path,
          body([
            { ...image(0), subject_hints: { region: REGION } },
            { ...image(1), subject_hints: { keep_points: [{ x: 0.2, y: 0.3 }] } },
            { ...image(2), subject_hints: null },
          ]),
          idempotencyKey(),
          3,
        );
      });
    });

    it('refuses hints on an edit without a background operation that cuts the subject out', async () => {
      const input = [
        { image_url: 'https://images.example.com/p/0.jpg' },
        { image_url: 'https://images.example.com/p/1.jpg', subject_hints: GOOD_HINTS },
      ];
      for (const operations of [undefined, { resizing: { width: 800 } }, { background: { type: 'original' } }]) {
        await expectRefused('/api/v1/image/edit', { input, operations }, idempotencyKey(), ['input[1].subject_hints']);
      }
      await expectAccepted(
        '/api/v1/image/edit',
        { input, operations: { background: { type: 'original', shadow: 'soft' } } },
        idempotencyKey(),
        2,
      );
    });

    it("refuses hints on a product photo job whose operation keeps the photo's background", async () => {
      const images = [
        { source_url: 'https://images.example.com/p/0.jpg', external_id: 'sku-0', subject_hints: GOOD_HINTS },
      ];
      await expectRefused('/api/v1/product-photo-jobs', { images }, idempotencyKey(), ['images[0].subject_hints']);
      await expectRefused(
        '/api/v1/product-photo-jobs',
        { images, operation: 'product_photo_enhance' },
        idempotencyKey(),
        ['images[0].subject_hints'],
      );
      await expectAccepted('/api/v1/product-photo-jobs', { images, preset: 'shop_square_image' }, idempotencyKey(), 1);
    });

    it('refuses hints on endpoints that take none', async () => {
      const input = [{ image_url: 'https://images.example.com/p/0.jpg', subject_hints: GOOD_HINTS }];
      await expectRefused('/api/v1/image/ai-edit', { input, options: { prompt: 'On marble' } }, idempotencyKey(), [
        'input[0].subject_hints',
      ]);
      await expectRefused('/api/v1/scene/create', { input, scene: { prompt: 'On marble' } }, idempotencyKey(), [
        'input[0].subject_hints',
      ]);
    });

    describe('POST /api/v1/remove-background output.channels', () => {
      const input = [{ image_url: 'https://images.example.com/p/0.jpg' }];
      const refusedKey = idempotencyKey();
      it.each<[string, Body, string[]]>([
        ['alpha with format jpg', { output: { channels: 'alpha', format: 'jpg' } }, ['output.format']],
        ['alpha with format webp', { output: { channels: 'alpha', format: 'webp' } }, ['output.format']],
        ['alpha on white', { output: { channels: 'alpha' }, background: { type: 'white' } }, ['background.type']],
        [
          'alpha on a colour',
          { output: { channels: 'alpha' }, background: { type: 'color', color: '#FFFFFF' } },
          ['background.type'],
        ],
        [
          'alpha with a soft shadow',
          { output: { channels: 'alpha' }, background: { shadow: 'soft' } },
          ['background.shadow'],
        ],
        [
          'alpha with a natural shadow',
          { output: { channels: 'alpha' }, background: { shadow: 'natural' } },
          ['background.shadow'],
        ],
        ['channels not an allowed value', { output: { channels: 'rgb' } }, ['output.channels']],
        ['channels in upper case', { output: { channels: 'ALPHA' } }, ['output.channels']],
        ['channels null (it has a default)', { output: { channels: null } }, ['output.channels']],
      ])('refuses %s', async (_what, patch, paths) => {
        await expectRefused('/api/v1/remove-background', { input, ...patch }, refusedKey, paths);
      });

      it('accepts alpha as png, cropped to the subject, with the key every refusal used', async () => {
        await expectAccepted(
          '/api/v1/remove-background',
          {
            input,
            output: { channels: 'alpha', format: 'png', crop_to_subject: true, margin_percent: 5, number_of_images: 2 },
            background: { type: 'transparent', shadow: 'none' },
          },
          refusedKey,
          2,
        );
      });

      it('charges a mask like a cut-out', async () => {
        const mask = await post(
          '/api/v1/remove-background',
          { input, output: { channels: 'alpha' } },
          idempotencyKey(),
        ).expect(202);
        const cutout = await post('/api/v1/remove-background', { input }, idempotencyKey()).expect(202);
        expect(mask.body.job.credits_reserved).toBe(cutout.body.job.credits_reserved);
      });
    });
  });
});
