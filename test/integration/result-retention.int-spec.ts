import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { QueueJobName } from '../../src/core/queue/queue-jobs';
import { QueueName } from '../../src/core/queue/queue-name';
import { ResultStorage } from '../../src/core/storage/result-storage';
import { ResultRetentionSweeperService } from '../../src/modules/jobs/worker/result-retention-sweeper.service';
import type { ToolOutput, ToolTask } from '../../src/modules/tools/tool-runner';
import { FakeProviderRunner, idempotencyKey, imageInputs, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

const RETENTION_DAYS = 30;

/** The fake provider, with a preview of each result's source as a live tool makes one. */
class PreviewingProviderRunner extends FakeProviderRunner {
  override async run(task: ToolTask): Promise<ToolOutput> {
    const output = await super.run(task);
    return { ...output, sourcePreview: output.image };
  }
}

interface StoredResult {
  id: string;
  index: number;
  result_key: string | null;
  thumbnail_key: string | null;
  source_preview_key: string | null;
  files_expired_at: Date | null;
}

interface ReadResult {
  id: string;
  status: string;
  result_url: string | null;
  thumbnail_url: string | null;
  source_preview_url: string | null;
}

describe.each([
  ['local', async () => ({ settings: {}, stop: async () => undefined })],
  [
    's3',
    async () => {
      const s3: LoopbackS3 = await startLoopbackS3();
      return { settings: s3.env, stop: () => s3.stop() };
    },
  ],
])(`${ResultRetentionSweeperService.name} with STORAGE_DRIVER=%s`, (_driver, startStore) => {
  let t: TestApp;
  let account: SeededAccount;
  let stopStore: () => Promise<void>;

  beforeAll(async () => {
    const store = await startStore();
    stopStore = store.stop;
    t = await createTestApp(
      {
        ...GENEROUS_LIMITS,
        ...store.settings,
        RESULT_RETENTION_DAYS: String(RETENTION_DAYS),
        SWEEP_INTERVAL_SECONDS: '3600',
      },
      { role: ProcessRole.All, override: withFakeProvider(new PreviewingProviderRunner()) },
    );
    account = await seedAccount(t, { credits: 20 });
  });
  afterAll(async () => {
    await t.close();
    await stopStore();
  });

  /** A completed job of two results, the first finished `oldDays` ago and the second `newDays` ago. */
  async function completedJob(
    oldDays: number,
    newDays: number,
  ): Promise<{ jobId: string; older: StoredResult; newer: StoredResult }> {
    const res = await t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.liveKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: imageInputs(2) });
    expect(res.status).toBe(202);
    const jobId: string = res.body.job.id;
    await waitForJob(t, jobId, (job) => job.status === 'completed');
    await t.dataSource.query(
      `UPDATE job_results SET completed_at = now() - make_interval(days => ` +
        `CASE index WHEN 0 THEN $2::int ELSE $3::int END)
        WHERE job_id = $1`,
      [jobId, oldDays, newDays],
    );
    const [older, newer] = await storedResults(jobId);
    return { jobId, older, newer };
  }

  const storedResults = (jobId: string): Promise<StoredResult[]> =>
    t.dataSource.query(
      `SELECT id, index, result_key, thumbnail_key, source_preview_key, files_expired_at
         FROM job_results WHERE job_id = $1 ORDER BY index`,
      [jobId],
    );

  async function readResults(jobId: string): Promise<ReadResult[]> {
    const res = await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(account.liveKey));
    expect(res.status).toBe(200);
    return res.body.results;
  }

  async function exists(key: string | null): Promise<boolean> {
    if (key === null) throw new Error('the result has no key');
    const file = await t.app.get(ResultStorage).open(key);
    file?.stream.resume();
    return file !== null;
  }

  /** Downloads a handed-out API URL through the app. */
  async function downloadStatus(url: string): Promise<number> {
    const { pathname, search } = new URL(url);
    return (await t.http().get(`${pathname}${search}`)).status;
  }

  it('is scheduled on the maintenance queue', async () => {
    const maintenance = t.app.get<Queue>(getQueueToken(QueueName.Maintenance));
    expect(await maintenance.getJobScheduler(QueueJobName.SweepExpiredResultFiles)).toBeDefined();
  });

  it('deletes the files of a result finished longer ago than the retention, and keeps a newer one’s', async () => {
    const { jobId, older, newer } = await completedJob(RETENTION_DAYS + 1, RETENTION_DAYS - 1);
    expect(await exists(older.result_key)).toBe(true);

    expect(await t.app.get(ResultRetentionSweeperService).sweep()).toEqual({ expired: 1, failed: 0 });

    expect(await exists(older.result_key)).toBe(false);
    expect(await exists(older.thumbnail_key)).toBe(false);
    expect(await exists(older.source_preview_key)).toBe(false);
    expect(await exists(newer.result_key)).toBe(true);
    expect(await exists(newer.thumbnail_key)).toBe(true);
    expect(await exists(newer.source_preview_key)).toBe(true);

    // The expired result stays completed, with no URLs; the newer one's URLs still download.
    const [readOlder, readNewer] = await readResults(jobId);
    expect(readOlder).toMatchObject({
      id: older.id,
      status: 'completed',
      result_url: null,
      thumbnail_url: null,
      source_preview_url: null,
    });
    expect(readNewer).toMatchObject({ id: newer.id, status: 'completed' });
    expect(await downloadStatus(readNewer.result_url ?? '')).toBe(200);
    expect(await downloadStatus(readNewer.thumbnail_url ?? '')).toBe(200);
    expect(await downloadStatus(readNewer.source_preview_url ?? '')).toBe(200);

    const [storedOlder, storedNewer] = await storedResults(jobId);
    expect(storedOlder).toMatchObject({
      result_key: null,
      thumbnail_key: null,
      source_preview_key: null,
      files_expired_at: expect.any(Date),
    });
    expect(storedNewer).toMatchObject({ result_key: newer.result_key, files_expired_at: null });

    // Nothing is left to do until the newer one's time comes.
    expect(await t.app.get(ResultRetentionSweeperService).sweep()).toEqual({ expired: 0, failed: 0 });
  });

  it('hands out no URL once a result is marked, and retries a deletion that failed', async () => {
    const { jobId, older } = await completedJob(RETENTION_DAYS + 2, RETENTION_DAYS + 2);
    const storage = t.app.get(ResultStorage);
    const failingDelete = jest.spyOn(storage, 'delete').mockRejectedValue(new Error('storage unavailable'));
    try {
      expect(await t.app.get(ResultRetentionSweeperService).sweep()).toEqual({ expired: 0, failed: 2 });
    } finally {
      failingDelete.mockRestore();
    }
    // The files are still there, but the read already answers as for an expired result.
    expect(await exists(older.result_key)).toBe(true);
    const read = await readResults(jobId);
    expect(read.map((result) => [result.result_url, result.thumbnail_url, result.source_preview_url])).toEqual([
      [null, null, null],
      [null, null, null],
    ]);

    expect(await t.app.get(ResultRetentionSweeperService).sweep()).toEqual({ expired: 2, failed: 0 });
    expect(await exists(older.result_key)).toBe(false);
    expect(await exists(older.source_preview_key)).toBe(false);
    expect((await storedResults(jobId)).every((result) => result.result_key === null)).toBe(true);
  });
});
