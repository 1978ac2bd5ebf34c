import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../../src/app.module';
import { ProcessRole } from '../../src/core/bootstrap/role';
import type { AppConfig } from '../../src/core/config/config.schema';
import { loadConfig } from '../../src/core/config/load-config';
import { HealthService } from '../../src/core/health/health.service';
import { fromFixture, paint } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { creditTotals, jobsClient, waitForJob, writtenRows } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { createTestApp, seedAccount, startTestApp, type SeededAccount, type TestApp } from '../support/test-app';
import { testServices } from '../support/test-services';

/** The shipped weights under a second name: a model an operator brings, cheap enough for a test. */
const SECOND = 'isnet-second';
const SECOND_PRICE = 3;
const SECOND_MANIFEST = {
  name: SECOND,
  preset: 'isnet',
  weights: 'shipped',
  version: 'second-try',
  input: { size: 320 },
};

/** An orange disc on blue-grey, 320 x 240: each model cuts it out. */
const photo = () =>
  paint(320, 240, (x, y) => ((x - 160) ** 2 + (y - 120) ** 2 <= 60 ** 2 ? [240, 140, 30] : [90, 100, 120]));

/** Another worker of the deployment `api` belongs to, with its own settings (the models it serves). */
async function workerOf(api: TestApp, settings: Partial<AppConfig>): Promise<TestApp> {
  const schema = (api.dataSource.options as { schema?: string }).schema as string;
  const { databaseUrl, redisUrl } = testServices();
  const config: AppConfig = { ...api.config, ...settings };
  return startTestApp(
    [AppModule.forRole(ProcessRole.Worker, config, { databaseUrl, redisUrl, databaseSchema: schema })],
    config,
  );
}

describe('Several segmentation models (through the API, routed by queue to the workers that have them)', () => {
  let folder: string;
  let server: ImageSourceServer;
  let api: TestApp;
  let defaultOnly: TestApp;
  let account: SeededAccount;
  const workers: TestApp[] = [];

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'imgjobs-models-'));
    const manifest = join(folder, `${SECOND}.json`);
    await writeFile(manifest, JSON.stringify(SECOND_MANIFEST));
    server = await ImageSourceServer.start();
    server.serve('/disc.png', await fromFixture(photo()).png().toBuffer(), { contentType: 'image/png' });
    api = await createTestApp({
      ...GENEROUS_LIMITS,
      CAPACITY_ACCOUNT_SHARE: '1',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      RESULT_TIMEOUT_SECONDS: '300',
      SEGMENTER: 'local',
      SEGMENTATION_INPUT_SIZE: '320',
      SEGMENTATION_MODELS: manifest,
      WORKER_QUEUES: 'background-removal',
    });
    await api.dataSource.query(`INSERT INTO prices (cost_key, pricing_version, credits) VALUES ($1, 1, $2)`, [
      `remove_background.model.${SECOND}`,
      SECOND_PRICE,
    ]);
    defaultOnly = await workerOf(api, { WORKER_MODELS: ['isnet-general-use'] });
    workers.push(defaultOnly);
    account = await seedAccount(api, { credits: 100 });
  }, 240_000);

  afterAll(async () => {
    for (const worker of workers) await worker.close();
    await api?.close();
    await server?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  const jobs = () => jobsClient(api, () => account.liveKey, 240_000);
  const cutout = (extra: object = {}) => ({
    input: [{ image_url: server.url('/disc.png'), external_id: 'disc' }],
    ...extra,
  });

  it('lists both models, the default first, and the second one priced of its own', async () => {
    const res = await api.http().get('/api/v1/tools').expect(200);
    const models = res.body.segmentation_models as Array<Record<string, unknown>>;
    expect(models.map((model) => [model.name, model.default])).toEqual([
      ['isnet-general-use', true],
      [SECOND, false],
    ]);
    expect(models[1].version).toMatch(/^second-try sha256:[0-9a-f]{12}$/);
    expect(models[1].input_size).toBe('320x320');
    const removeBackground = (res.body.tools as Array<{ id: string; option_prices: object[] }>).find(
      (tool) => tool.id === 'remove_background',
    );
    expect(removeBackground?.option_prices).toContainEqual(
      expect.objectContaining({ field: 'segmentation_model', value: SECOND, credits: SECOND_PRICE }),
    );
  });

  it('refuses a model the deployment does not have, and one where nothing is segmented, writing nothing', async () => {
    const before = await writtenRows(api);
    const balance = await creditTotals(api, account.accountId);
    const refusals: Array<[string, object]> = [
      ['/remove-background', cutout({ segmentation_model: 'birefnet' })],
      ['/remove-background', cutout({ segmentation_model: 'Not A Name' })],
      ['/remove-background', cutout({ segmentation_model: SECOND, existing_alpha: 'use' })],
      ['/image/edit', cutout({ segmentation_model: SECOND, operations: { adjustments: { light: true } } })],
      [
        '/product-photo-jobs',
        {
          images: [{ source_url: server.url('/disc.png'), external_id: 'disc' }],
          operation: 'natural_lifestyle',
          segmentation_model: SECOND,
        },
      ],
    ];
    for (const [path, body] of refusals) {
      const res = await jobs().create(path, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors).toEqual([
        expect.objectContaining({ path: 'segmentation_model', message: expect.any(String) }),
      ]);
    }
    const unknown = await jobs().create('/remove-background', cutout({ segmentation_model: 'birefnet' }));
    expect(unknown.body.error.details.errors[0].message).toContain('isnet-general-use, isnet-second');
    expect(await writtenRows(api)).toEqual(before);
    expect(await creditTotals(api, account.accountId)).toEqual(balance);
  });

  it('leaves a result naming the second model to a worker that has it, reports it and charges its price', async () => {
    const named = await jobs().create('/remove-background', cutout({ segmentation_model: SECOND }));
    expect(named.status).toBe(202);
    expect(named.body.job.credits_reserved).toBe(SECOND_PRICE);
    const plain = await jobs().create('/remove-background', cutout());
    expect(plain.status).toBe(202);

    // The default-only worker cuts the plain result out and never takes the named one.
    const [plainResult] = await jobs().results(plain.body.job.id as string);
    expect(plainResult.status).toBe('completed');
    expect(plainResult.segmentation?.model).toBe('isnet-general-use');
    expect(plainResult.credits_used).toBe(1);
    const waiting = await api.dataSource.query(`SELECT status, attempts FROM job_results WHERE job_id = $1`, [
      named.body.job.id,
    ]);
    expect(waiting).toEqual([{ status: 'queued', attempts: 0 }]);

    expect(defaultOnly.app.get(HealthService).about().segmentation_models).toEqual([
      { model: 'isnet-general-use', provider: 'cpu' },
    ]);

    const both = await workerOf(api, { WORKER_MODELS: [] });
    workers.push(both);
    await waitForJob(api, named.body.job.id as string, undefined, 240_000);
    expect(both.app.get(HealthService).about().segmentation_models).toEqual([
      { model: 'isnet-general-use', provider: 'cpu' },
      { model: SECOND, provider: 'cpu' },
    ]);
    const { job, results } = await jobs().read(named.body.job.id as string);
    expect(job.status).toBe('completed');
    expect(job.credits_used).toBe(SECOND_PRICE);
    expect(results[0].segmentation?.model).toBe(SECOND);
    expect(results[0].segmentation?.version).toMatch(/^second-try sha256:[0-9a-f]{12}$/);
    const cut = await jobs().download(results[0].result_url as string);
    expect(cut.pixel(160, 120)[3]).toBeGreaterThan(240);
    expect(cut.pixel(10, 10)[3]).toBeLessThan(15);
  }, 300_000);

  it('cuts an edit and a product photo out with the model they name', async () => {
    const edit = await jobs().create(
      '/image/edit',
      cutout({ segmentation_model: SECOND, operations: { background: { type: 'white' } } }),
    );
    expect(edit.status).toBe(202);
    const product = await jobs().create('/product-photo-jobs', {
      images: [{ source_url: server.url('/disc.png'), external_id: 'disc' }],
      operation: 'marketplace_clean',
      segmentation_model: SECOND,
    });
    expect(product.status).toBe(202);
    const [edited] = await jobs().results(edit.body.job.id as string);
    expect(edited.segmentation?.model).toBe(SECOND);
    const [clean] = await jobs().results(product.body.job.id as string);
    expect(clean.segmentation?.model).toBe(SECOND);
  }, 300_000);

  it('refuses the settings of a worker that takes cut-outs or edits without the default model', () => {
    const settings = {
      SEGMENTER: 'local',
      WORKER_MODELS: SECOND,
      DATABASE_URL: 'postgres://db',
      REDIS_URL: 'redis://r',
    };
    for (const queues of ['background-removal', 'processing']) {
      expect(() => loadConfig({ ...settings, WORKER_QUEUES: queues })).toThrow(
        /WORKER_MODELS.*must include the default model isnet-general-use/,
      );
    }
    expect(loadConfig({ ...settings, WORKER_QUEUES: 'sandbox' }).WORKER_MODELS).toEqual([SECOND]);
  });
});
