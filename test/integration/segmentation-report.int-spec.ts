import { readFileSync } from 'node:fs';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { runMigrations } from '../../src/core/database/migrate';
import { ResultSegmentation1764000000010 } from '../../src/core/database/migrations/1764000000010-result-segmentation';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { MASK_POST_PROCESSING_VERSION } from '../../src/engine/mask/post-processing-version';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { decodeRgba, fromFixture, paint, type Rgb } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { jobsClient, waitForJob, type ResultBody } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { testServices } from '../support/test-services';
import { testCertificate, WebhookReceiver } from '../support/webhook-receiver';

/**
 * A 320 x 240 product photo: an orange disc of radius 60 centred on flat blue-grey, which the
 * local model and the fake segmentation service (it keys out the corner's colour) both cut out.
 */
const WIDTH = 320;
const HEIGHT = 240;
const BACKDROP: Rgb = [90, 100, 120];
const photo = () =>
  paint(WIDTH, HEIGHT, (x, y) => ((x - 160) ** 2 + (y - 120) ** 2 <= 60 ** 2 ? [240, 140, 30] : BACKDROP));

type Segmentation = ResultBody['segmentation'];
type ResultEvent = { type: string; job: { id: string }; result?: Record<string, unknown> };

/**
 * The local model's report: its name, the data package its weights come from as installed with the
 * checksum prefix of the model assembled from it, our post-processing.
 */
function localModelReport(): Segmentation {
  const manifest = JSON.parse(readFileSync(require.resolve('@imgly/background-removal-data/package.json'), 'utf8')) as {
    version: string;
  };
  return {
    model: 'isnet-general-use',
    version: `@imgly/background-removal-data@${manifest.version} sha256:b6e8497ba978`,
    post_processing_version: MASK_POST_PROCESSING_VERSION,
  };
}

const SANDBOX_REPORT: Segmentation = {
  model: 'sandbox',
  version: '1',
  post_processing_version: MASK_POST_PROCESSING_VERSION,
};

/** A live app cutting out with `settings`' segmenter, a source server with the photo, a webhook receiver. */
async function startLive(settings: Record<string, string>, segmentation?: FakeSegmentationService) {
  const server = await ImageSourceServer.start();
  server.serve('/disc.png', await fromFixture(photo()).png().toBuffer(), { contentType: 'image/png' });
  if (segmentation) server.route('/segment', segmentation.handle);
  const receiver = await WebhookReceiver.start();
  const { cert } = testCertificate();
  const t = await createTestApp(
    {
      ...GENEROUS_LIMITS,
      CAPACITY_ACCOUNT_SHARE: '1',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      RESULT_TIMEOUT_SECONDS: '300',
      ...(segmentation ? { SEGMENTER_URL: server.url('/segment') } : {}),
      ...settings,
    },
    { role: ProcessRole.All, override: (builder) => builder.overrideProvider(OUTBOUND_TLS).useValue({ ca: [cert] }) },
  );
  const account = await seedAccount(t, { credits: 100 });
  return { t, server, receiver, account };
}

/**
 * One job of each kind a live key makes, with a webhook: a cut-out, a mask, an edit whose
 * background operation cuts the subject out, an edit that cuts nothing out, and a product photo
 * cut-out. Answers the results and the result events by kind.
 */
async function runEveryKind(t: TestApp, account: SeededAccount, source: string, receiver: WebhookReceiver) {
  const jobs = jobsClient(t, () => account.liveKey, 240_000);
  const create = async (path: string, body: object): Promise<string> => {
    const res = await jobs.create(path, { ...body, webhook_url: receiver.url });
    expect(res.status).toBe(202);
    return res.body.job.id as string;
  };
  const ids = {
    cutout: await create('/remove-background', { input: [{ image_url: source }] }),
    mask: await create('/remove-background', { input: [{ image_url: source }], output: { channels: 'alpha' } }),
    edited: await create('/image/edit', {
      input: [{ image_url: source }],
      operations: { background: { type: 'white' } },
    }),
    resized: await create('/image/edit', { input: [{ image_url: source }], operations: { resizing: { width: 160 } } }),
    product: await create('/product-photo-jobs', {
      images: [{ source_url: source, external_id: 'sku-1' }],
      preset: 'transparent_cutout',
    }),
  };
  const results: Record<keyof typeof ids, ResultBody> = {} as Record<keyof typeof ids, ResultBody>;
  for (const [kind, id] of Object.entries(ids) as Array<[keyof typeof ids, string]>) {
    const [result] = await jobs.results(id);
    expect({ kind, status: result.status, error: result.error_message }).toEqual({
      kind,
      status: 'completed',
      error: null,
    });
    results[kind] = result;
  }
  const item = (
    await t.http().get(`/api/v1/product-image-enhancements/${ids.product}`).set(bearer(account.liveKey)).expect(200)
  ).body.enhancement.items[0] as { segmentation: Segmentation };

  // One result event and one job event a job.
  await receiver.waitFor(2 * Object.keys(ids).length, 60_000);
  const events = receiver.received.map((delivery) => JSON.parse(delivery.body) as ResultEvent);
  const eventOf = (jobId: string) =>
    events.find((event) => event.job.id === jobId && event.type === 'image_api.result.completed')?.result;
  const webhooks = Object.fromEntries(
    Object.entries(ids).map(([kind, id]) => [kind, eventOf(id)?.segmentation]),
  ) as Record<keyof typeof ids, Segmentation | undefined>;
  const cutout = await decodeRgba(await jobs.bytes(results.cutout.result_url as string));
  return { results, item, webhooks, cutout };
}

describe('which model made a cut-out (segmentation), through the API and a worker', () => {
  describe('with the local model', () => {
    let live: Awaited<ReturnType<typeof startLive>>;
    beforeAll(async () => {
      live = await startLive({ SEGMENTER: 'local', WORKER_CONCURRENCY_BACKGROUND_REMOVAL: '1' });
    }, 120_000);
    afterAll(async () => {
      await live?.t.close();
      await live?.server.stop();
      await live?.receiver.stop();
    });

    it('reports isnet-general-use, its weights and our post-processing on each cut-out, null on the rest', async () => {
      const { t, account, server, receiver } = live;
      const { results, item, webhooks, cutout } = await runEveryKind(t, account, server.url('/disc.png'), receiver);
      const report = localModelReport();
      expect(report).toEqual({
        model: 'isnet-general-use',
        version: '@imgly/background-removal-data@1.4.5 sha256:b6e8497ba978',
        post_processing_version: '1',
      });

      expect(results.cutout.segmentation).toEqual(report);
      expect(results.mask.segmentation).toEqual(report);
      expect(results.edited.segmentation).toEqual(report);
      expect(results.product.segmentation).toEqual(report);
      expect(item.segmentation).toEqual(report);
      expect(results.resized.segmentation).toBeNull();
      expect(webhooks).toEqual({ cutout: report, mask: report, edited: report, product: report, resized: null });
      // It is a cut-out: the corner is transparent, the disc's centre opaque.
      expect([cutout.pixel(2, 2)[3], cutout.pixel(160, 120)[3]]).toEqual([0, 255]);
    }, 600_000);
  });

  describe('with a remote segmentation service, in the sandbox, and across the migration', () => {
    const segmentation = new FakeSegmentationService();
    let live: Awaited<ReturnType<typeof startLive>>;
    beforeAll(async () => {
      live = await startLive({ SEGMENTER: 'remote', SEGMENTER_MODEL: 'corner-keyer-2' }, segmentation);
    }, 120_000);
    afterAll(async () => {
      await live?.t.close();
      await live?.server.stop();
      await live?.receiver.stop();
    });

    const sandboxJob = async (path: string, body: object): Promise<{ id: string; results: ResultBody[] }> => {
      const { t, account } = live;
      const res = await jobsClient(t, () => account.sandboxKey).create(path, body);
      expect(res.status).toBe(202);
      const id = res.body.job.id as string;
      await waitForJob(t, id);
      return { id, results: (await jobsClient(t, () => account.sandboxKey).read(id)).results };
    };

    it('reports the configured model, no version (the service does not say) and our post-processing', async () => {
      const { t, account, server, receiver } = live;
      receiver.received.length = 0;
      const { results, item, webhooks, cutout } = await runEveryKind(t, account, server.url('/disc.png'), receiver);
      const report = { model: 'corner-keyer-2', version: null, post_processing_version: MASK_POST_PROCESSING_VERSION };

      for (const kind of ['cutout', 'mask', 'edited', 'product'] as const)
        expect(results[kind].segmentation).toEqual(report);
      expect(item.segmentation).toEqual(report);
      expect(results.resized.segmentation).toBeNull();
      expect(webhooks).toEqual({ cutout: report, mask: report, edited: report, product: report, resized: null });
      expect(segmentation.received.length).toBeGreaterThanOrEqual(4);
      expect([cutout.pixel(2, 2)[3], cutout.pixel(160, 120)[3]]).toEqual([0, 255]);
    }, 300_000);

    it('gives sandbox cut-outs the sandbox report, and every other sandbox result null', async () => {
      const input = [{ image_url: 'https://images.example.com/p/1.jpg', external_id: 'sku-1' }];
      const [cutout] = (await sandboxJob('/remove-background', { input })).results;
      const [mask] = (await sandboxJob('/remove-background', { input, output: { channels: 'alpha' } })).results;
      const [edited] = (await sandboxJob('/image/edit', { input, operations: { background: { type: 'transparent' } } }))
        .results;
      const [resized] = (await sandboxJob('/image/edit', { input, operations: { resizing: { width: 100 } } })).results;
      const [failed] = (
        await sandboxJob('/remove-background', { input: [{ ...input[0], external_id: 'sandbox_fail-1' }] })
      ).results;
      expect([cutout, mask, edited].map((result) => result.segmentation)).toEqual([
        SANDBOX_REPORT,
        SANDBOX_REPORT,
        SANDBOX_REPORT,
      ]);
      expect([resized.segmentation, failed.segmentation]).toEqual([null, null]);
      expect(failed.status).toBe('failed');
    });

    it('adds the column to a database with results in it: their segmentation null, new cut-outs reported', async () => {
      const { t } = live;
      const before = await sandboxJob('/remove-background', {
        input: [{ image_url: 'https://images.example.com/p/2.jpg' }],
      });
      expect(before.results[0].segmentation).toEqual(SANDBOX_REPORT);

      // The database as it was before the migration, with this completed cut-out in it.
      const migration = new ResultSegmentation1764000000010();
      const runner = t.dataSource.createQueryRunner();
      try {
        await migration.down(runner);
        await runner.query(`DELETE FROM schema_migrations WHERE name = $1`, [migration.name]);
      } finally {
        await runner.release();
      }
      const schema = (t.dataSource.options as { schema?: string }).schema as string;
      const applied = await runMigrations({ url: testServices().databaseUrl, poolSize: 1, schema });
      expect(applied).toEqual([migration.name]);
      const [column] = await t.dataSource.query(
        `SELECT data_type, is_nullable FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = 'job_results' AND column_name = 'segmentation'`,
        [schema],
      );
      expect(column).toEqual({ data_type: 'jsonb', is_nullable: 'YES' });

      // The older result is shown as before, with no segmentation: what made it was not recorded.
      const [older] = (await jobsClient(t, () => live.account.sandboxKey).read(before.id)).results;
      expect(older).toMatchObject({
        id: before.results[0].id,
        status: 'completed',
        uncertainty: 0.05,
        segmentation: null,
      });
      expect(older.result_url).toEqual(expect.any(String));
      const after = await sandboxJob('/remove-background', {
        input: [{ image_url: 'https://images.example.com/p/3.jpg' }],
      });
      expect(after.results[0].segmentation).toEqual(SANDBOX_REPORT);
    });
  });
});
