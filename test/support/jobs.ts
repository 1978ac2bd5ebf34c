import type { EventReview } from '../../src/modules/webhooks/webhook-outbox.service';
import { randomUUID } from 'node:crypto';
import type { TestingModuleBuilder } from '@nestjs/testing';
import { ToolId } from '../../src/modules/catalog/tools';
import { ResultErrorCode, ResultFailure } from '../../src/modules/tools/result-failure';
import { TOOL_AVAILABILITY } from '../../src/modules/catalog/tool-availability';
import type { ToolOutput, ToolRunner, ToolTask } from '../../src/modules/tools/tool-runner';
import { LIVE_TOOL_RUNNERS } from '../../src/modules/tools/tool-runners';
import { decodeRgba } from './image-fixtures';
import { bearer, type TestApp } from './test-app';
import { readUntil } from './waiting';

/** A 1x1 PNG: enough for storage and thumbnails, with no image library in the test. */
const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * Stands in for a live provider (the tool step is the boundary to an outside service): it
 * succeeds at once, or fails for sources whose external_id starts with `fail`.
 */
export class FakeProviderRunner implements ToolRunner {
  readonly tasks: ToolTask[] = [];

  async run(task: ToolTask): Promise<ToolOutput> {
    this.tasks.push(task);
    if (task.externalId?.startsWith('fail')) {
      throw new ResultFailure(ResultErrorCode.ProviderError, 'The provider refused this image.');
    }
    return { image: ONE_PIXEL_PNG, format: 'png' };
  }
}

/** Makes these tools available to live keys, each run by its runner (in place of the deployment's own). */
export function withLiveTools(runners: Map<ToolId, ToolRunner>) {
  const available = new Map([...runners.keys()].map((tool) => [tool, { available: true }]));
  return (builder: TestingModuleBuilder) =>
    builder
      .overrideProvider(LIVE_TOOL_RUNNERS)
      .useValue(runners)
      .overrideProvider(TOOL_AVAILABILITY)
      .useValue(available);
}

/** Gives live keys a working image_editing tool through the fake provider. */
export function withFakeProvider(runner = new FakeProviderRunner()) {
  return withLiveTools(new Map([[ToolId.ImageEditing, runner]]));
}

/** Gives live keys every tool, each through a fake provider of its own. */
export const withFakeProviderForEveryTool = () =>
  withLiveTools(new Map(Object.values(ToolId).map((tool) => [tool, new FakeProviderRunner()])));

export const idempotencyKey = () => `test-${randomUUID()}`;

export const imageInputs = (count: number, externalId = (i: number) => `item-${i}`) =>
  Array.from({ length: count }, (_, i) => ({
    image_url: `https://images.example.com/p/${i}.jpg`,
    external_id: externalId(i),
  }));

/** Reads state straight from the database, so waiting never spends the polling rate limit. */
export async function waitForJob(
  t: TestApp,
  jobId: string,
  done: (job: { status: string }) => boolean = (job) => !['queued', 'processing'].includes(job.status),
  timeoutMs = 20_000,
): Promise<{ status: string }> {
  const readJob = async (): Promise<{ status: string } | undefined> =>
    (await t.dataSource.query(`SELECT status FROM jobs WHERE id = $1`, [jobId]))[0];
  const job = await readUntil(
    readJob,
    (row) => row !== undefined && done(row),
    (row) => `job ${jobId} (still ${row?.status})`,
    { timeoutMs, intervalMs: 50 },
  );
  return job as { status: string };
}

export interface CreditTotals {
  balance: number;
  ledgerSum: number;
}

export async function creditTotals(t: TestApp, accountId: string): Promise<CreditTotals> {
  const [row] = await t.dataSource.query(
    `SELECT a.paid_credits AS balance, coalesce(sum(l.amount), 0)::int AS ledger_sum
       FROM accounts a LEFT JOIN credit_ledger l ON l.account_id = a.id
      WHERE a.id = $1 GROUP BY a.paid_credits`,
    [accountId],
  );
  return { balance: row.balance, ledgerSum: row.ledger_sum };
}

/** How many rows a refused request could have written; all must stay the same. */
export async function writtenRows(
  t: TestApp,
): Promise<{ jobs: number; results: number; ledger: number; keys: number }> {
  const [row] = await t.dataSource.query(
    `SELECT (SELECT count(*) FROM jobs)::int AS jobs, (SELECT count(*) FROM job_results)::int AS results,
            (SELECT count(*) FROM credit_ledger)::int AS ledger, (SELECT count(*) FROM idempotency_keys)::int AS keys`,
  );
  return row;
}

/** A completed cut-out's review as result records show it: the API's `review` object, as events show it too. */
export type ShownReview = EventReview;

export interface ResultBody {
  id: string;
  external_id: string;
  status: string;
  error_code: string | null;
  error_message: string | null;
  result_url: string | null;
  thumbnail_url: string | null;
  credits_used: number;
  /** 0 sure .. 1 unsure, for cut-out results; null for others. */
  uncertainty: number | null;
  /** Which model and mask post-processing made a cut-out; null for others. */
  segmentation: { model: string; version: string | null; post_processing_version: string | null } | null;
  subject_hints: unknown;
  source_preview_url: string | null;
  /** Flagged for review on completion and still pending. */
  needs_review: boolean;
  review: ShownReview | null;
}

/**
 * Results with their signed URLs cut to the path: each read signs anew, so two reads a second
 * apart differ in `expires` and `signature` while naming the same file.
 */
export const unsigned = (results: Array<Record<string, unknown>>) =>
  results.map((result) => ({
    ...result,
    result_url: typeof result.result_url === 'string' ? result.result_url.split('?')[0] : result.result_url,
    thumbnail_url: typeof result.thumbnail_url === 'string' ? result.thumbnail_url.split('?')[0] : result.thumbnail_url,
    source_preview_url:
      typeof result.source_preview_url === 'string'
        ? result.source_preview_url.split('?')[0]
        : result.source_preview_url,
  }));

/** A result's file (its image or thumbnail), downloaded through the app from the signed URL a job gives. */
export async function resultFile(t: TestApp, url: string): Promise<Buffer> {
  const parsed = new URL(url);
  return (
    await t
      .http()
      .get(parsed.pathname + parsed.search)
      .buffer(true)
      .expect(200)
  ).body as Buffer;
}

/**
 * A key's jobs as the integration specs drive them through the API: `create` (with a fresh
 * Idempotency-Key), `read` a job, `results` once the job has settled, a result's file as `bytes`
 * or decoded (`download`).
 */
export function jobsClient(t: TestApp, key: () => string, timeoutMs = 60_000) {
  const create = (path: string, body: object) =>
    t.http().post(`/api/v1${path}`).set(bearer(key())).set('Idempotency-Key', idempotencyKey()).send(body);
  const read = async (jobId: string) =>
    (await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(key())).expect(200)).body as {
      job: Record<string, unknown> & { credits_used: number };
      results: ResultBody[];
    };
  const results = async (jobId: string, timeout = timeoutMs): Promise<ResultBody[]> => {
    await waitForJob(t, jobId, undefined, timeout);
    return (await read(jobId)).results;
  };
  const bytes = (url: string): Promise<Buffer> => resultFile(t, url);
  const download = async (url: string) => decodeRgba(await bytes(url));
  return { create, read, results, bytes, download };
}
