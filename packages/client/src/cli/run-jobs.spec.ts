import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from './canonical';
import { RequestFailedError, type JobState, type JobsApi } from './jobs-api';
import { Pacing } from './pacing';
import type { Progress } from './progress';
import { runJobs, type RunOutcome } from './run-jobs';
import { readSources } from './sources';
import { STATE_FILE_NAME } from './state-file';
import { editRequest } from './tool-requests';

const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

/** Thrown by the fake service to stand for the command line dying right after a request reached the service. */
class Interrupted extends Error {}

/**
 * A service in memory with the contract's rules that matter here: idempotent creates (a replay
 * charges nothing, another body under a key is 409), a create limit per window and one active job
 * per key, each refusal a 429 with Retry-After; every answer tells `pacing` its RateLimit headers.
 */
class FakeService implements JobsApi {
  now = 0;
  readonly charged = new Map<string, number>();
  readonly refusals: string[] = [];
  createsSeen = 0;
  interruptCreate: number | null = null;
  /** Jobs stay in processing until this many creates were asked for: a set order instead of a race. */
  holdJobsUntilCreates = 0;
  private uploads = 0;
  private readonly keys = new Map<string, { body: string; jobId: string }>();
  private readonly jobs = new Map<string, { externalIds: string[]; polls: number }>();
  private createTimes: number[] = [];

  constructor(
    private readonly pacing: Pacing,
    private readonly limits: { createsPerWindow: number; windowMs: number; pollsToFinish: number },
  ) {}

  /** Uploads whose bytes contain this are refused as over the pixel limit. */
  refuseUploadsContaining: string | null = null;
  private readonly uploadsByKey = new Map<string, string>();

  async upload(bytes: Buffer, _fileName: string, key: string): Promise<{ imageUrl: string; expiresAt: string }> {
    if (this.refuseUploadsContaining && bytes.includes(this.refuseUploadsContaining)) {
      throw new RequestFailedError({ status: 413, code: 'payload_too_large', message: 'too many pixels' });
    }
    let url = this.uploadsByKey.get(key);
    if (!url) {
      this.uploads += 1;
      url = `upload://upl_${this.uploads}`;
      this.uploadsByKey.set(key, url);
    }
    return { imageUrl: url, expiresAt: new Date(this.now + 86_400_000).toISOString() };
  }

  private refuse(code: string, retryAfterSeconds: number): never {
    this.refusals.push(code);
    throw new RequestFailedError({ status: 429, code, message: code, retryAfterSeconds });
  }

  async createJob(_endpoint: string, body: Record<string, unknown>, key: string): Promise<{ id: string }> {
    // A held job is judged by the creates asked before this one: it is still running when this
    // one arrives, however many polls it has had meanwhile.
    const seenBefore = this.createsSeen;
    this.createsSeen += 1;
    const known = this.keys.get(key);
    if (known) {
      if (known.body !== canonicalJson(body)) {
        throw new RequestFailedError({ status: 409, code: 'idempotency_conflict', message: 'conflict' });
      }
      return { id: known.jobId };
    }
    this.createTimes = this.createTimes.filter((at) => at > this.now - this.limits.windowMs);
    if (this.createTimes.length >= this.limits.createsPerWindow) {
      this.refuse('rate_limit_exceeded', Math.ceil((this.createTimes[0] + this.limits.windowMs - this.now) / 1000));
    }
    if ([...this.jobs.values()].some((job) => !this.finished(job, seenBefore))) {
      this.refuse('too_many_active_jobs', 30);
    }
    this.createTimes.push(this.now);
    const remaining = this.limits.createsPerWindow - this.createTimes.length;
    this.pacing.observe('create', {
      limit: this.limits.createsPerWindow,
      remaining,
      resetSeconds: Math.ceil((this.createTimes[0] + this.limits.windowMs - this.now) / 1000),
    });
    const jobId = `job-${this.jobs.size + 1}`;
    const input = body.input as Array<{ external_id: string }>;
    this.jobs.set(jobId, { externalIds: input.map((image) => image.external_id), polls: 0 });
    this.keys.set(key, { body: canonicalJson(body), jobId });
    // Failed results release their credits: only completed ones are paid for.
    this.charged.set(jobId, input.filter((image) => !image.external_id.startsWith('sandbox_fail')).length);
    if (this.interruptCreate === this.createsSeen) throw new Interrupted('killed');
    return { id: jobId };
  }

  private finished(job: { polls: number }, createsSeen = this.createsSeen): boolean {
    return job.polls >= this.limits.pollsToFinish && createsSeen >= this.holdJobsUntilCreates;
  }

  async getJob(id: string): Promise<JobState> {
    const job = this.jobs.get(id);
    if (!job) throw new RequestFailedError({ status: 404, code: 'not_found', message: 'no such job' });
    job.polls += 1;
    const finished = this.finished(job);
    return {
      id,
      status: finished ? 'partially_completed' : 'processing',
      results: job.externalIds.map((externalId, index) => {
        const fails = externalId.startsWith('sandbox_fail');
        const status = !finished ? 'processing' : fails ? 'failed' : 'completed';
        return {
          id: `${id}-r${index}`,
          index,
          externalId,
          status,
          resultUrl: status === 'completed' ? `http://files/${id}/${index}` : null,
          errorCode: status === 'failed' ? 'sandbox_simulated_failure' : null,
          errorMessage: status === 'failed' ? 'simulated' : null,
          creditsUsed: status === 'completed' ? 1 : 0,
        };
      }),
    };
  }

  async download(url: string): Promise<Buffer> {
    return Buffer.from(url);
  }

  async catalog() {
    return [];
  }

  async presets() {
    return [];
  }
}

const silent: Progress = { start() {}, update() {}, waiting() {}, event() {}, stop() {} };

describe('runJobs', () => {
  let folder: string;
  let photos: string[];

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'image-jobs-run-'));
    photos = [];
    for (let n = 1; n <= 7; n++) {
      const path = join(folder, n === 4 ? 'sandbox_fail_4.jpg' : `photo-${n}.jpg`);
      // A JPEG's signature, then bytes of its own: enough for the command line to take it as a photo.
      await writeFile(path, Buffer.concat([JPEG_SIGNATURE, Buffer.from(`bytes of photo ${n}`)]));
      photos.push(path);
    }
  });

  afterEach(() => rm(folder, { recursive: true, force: true }));

  /**
   * A run against the fake service, its time the service's. `turnEventLoop`: each wait also
   * turns the event loop, so a second job's file reads go on while the first one polls.
   */
  async function run(
    service: FakeService,
    pacing: Pacing,
    { maxActiveJobs = 1, turnEventLoop = false, files = photos } = {},
  ): Promise<RunOutcome> {
    return runJobs(
      {
        request: editRequest({ width: 10 }),
        ...(await readSources(files)),
        outDir: join(folder, 'out'),
        batchSize: 3,
        maxActiveJobs,
        baseUrl: 'http://service',
        apiKey: 'sk_sandbox_test',
      },
      {
        api: service,
        progress: silent,
        pacing,
        now: () => service.now,
        sleep: async (ms) => {
          service.now += ms;
          if (turnEventLoop) await new Promise((turn) => setImmediate(turn));
        },
      },
    );
  }

  it('writes each result under its source name, within the create and active-job limits, refused never', async () => {
    const pacing = new Pacing(() => service.now);
    const service: FakeService = new FakeService(pacing, { createsPerWindow: 2, windowMs: 60_000, pollsToFinish: 2 });
    const outcome = await run(service, pacing);
    expect(outcome.written.sort()).toEqual(
      ['photo-1', 'photo-2', 'photo-3', 'photo-5', 'photo-6', 'photo-7'].map((name) => `${name}.png`),
    );
    expect(outcome.failed).toEqual([{ name: 'sandbox_fail_4.png', reason: 'sandbox_simulated_failure: simulated' }]);
    expect(service.refusals).toEqual([]);
    // Three jobs of at most three, the third after the window let a create through again.
    expect(service.charged.size).toBe(3);
    expect(service.now).toBeGreaterThanOrEqual(60_000);
    const files = await readdir(join(folder, 'out'));
    expect(files.sort()).toEqual([STATE_FILE_NAME, ...outcome.written].sort());
    expect(await readFile(join(folder, 'out', 'photo-1.png'), 'utf8')).toMatch(/^http:\/\/files\/job-\d\/\d$/);
  });

  it('pays nothing twice when run again after dying between a create and its answer', async () => {
    const pacing = new Pacing(() => service.now);
    const service: FakeService = new FakeService(pacing, { createsPerWindow: 100, windowMs: 60_000, pollsToFinish: 1 });
    service.interruptCreate = 2;
    const first = await run(service, pacing);
    expect(first.failed.length).toBeGreaterThanOrEqual(2);
    const second = await run(service, pacing);
    // The second job is replayed (same key, same body from the remembered uploads), not made again; the image that
    // failed is tried again in a fourth job, and each image is paid for once.
    expect(service.charged.size).toBe(4);
    expect([...service.charged.values()].reduce((sum, n) => sum + n, 0)).toBe(6);
    expect(second.skipped).toBe(first.written.length);
    expect(first.written.length + second.written.length).toBe(6);
    expect(second.failed.map((failure) => failure.name)).toEqual(['sandbox_fail_4.png']);
    // A third run tries the failed image again, in a job of its own, and pays for nothing else.
    const third = await run(service, pacing);
    expect(third.skipped).toBe(6);
    expect(service.charged.size).toBe(5);
    expect([...service.charged.values()].reduce((sum, n) => sum + n, 0)).toBe(6);
  });

  it('waits for its own job when the key is at its active-job limit instead of asking again and again', async () => {
    const pacing = new Pacing(() => service.now);
    const service: FakeService = new FakeService(pacing, { createsPerWindow: 100, windowMs: 60_000, pollsToFinish: 3 });
    // The first job is still running when the second create is asked for, however the two runs interleave.
    service.holdJobsUntilCreates = 2;
    const outcome = await run(service, pacing, { maxActiveJobs: 2, turnEventLoop: true });
    expect(outcome.failed.map((failure) => failure.reason)).toEqual(['sandbox_simulated_failure: simulated']);
    expect(outcome.written).toHaveLength(6);
    // Two in flight meet the key's limit of one once; from then on the run keeps to one.
    expect(service.refusals).toEqual(['too_many_active_jobs']);
  });

  it('fails each file that cannot be sent alone, by its path and its reason, and sends every other one', async () => {
    const pacing = new Pacing(() => service.now);
    const service: FakeService = new FakeService(pacing, { createsPerWindow: 100, windowMs: 60_000, pollsToFinish: 1 });
    const empty = join(folder, 'empty.jpg');
    const text = join(folder, 'notes.jpg');
    const directory = join(folder, 'album.jpg');
    await writeFile(empty, '');
    await writeFile(text, 'shopping list');
    await mkdir(directory);
    service.refuseUploadsContaining = 'photo 2';
    const outcome = await run(service, pacing, { files: [folder] });
    expect(outcome.failed.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: directory, reason: 'cannot be read: it is a folder' },
      { name: empty, reason: 'empty file' },
      { name: text, reason: 'not an image: its bytes are no format the service reads' },
      { name: photos[1], reason: 'payload_too_large: too many pixels' },
      { name: 'sandbox_fail_4.png', reason: 'sandbox_simulated_failure: simulated' },
    ]);
    expect(outcome.total).toBe(10);
    expect(outcome.written.sort()).toEqual(
      ['photo-1', 'photo-3', 'photo-5', 'photo-6', 'photo-7'].map((n) => `${n}.png`),
    );
    // The job of the refused file went on without it: five paid for, none for the bad files.
    expect([...service.charged.values()].reduce((sum, n) => sum + n, 0)).toBe(5);

    // A run that lost its state asks for the same uploads and the same jobs, and pays for nothing again.
    await rm(join(folder, 'out', STATE_FILE_NAME));
    const again = await run(service, pacing, { files: [folder] });
    expect(again.written).toHaveLength(5);
    expect(service.refusals).toEqual([]);
    expect([...service.charged.values()].reduce((sum, n) => sum + n, 0)).toBe(5);
  });
});
