import { readFile, rename, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from './canonical';
import { FINISHED_JOB_STATUSES, type JobState, type JobsApi, type RequestFailure } from './jobs-api';
import { outputName } from './naming';
import { Pacing, pollGapMs } from './pacing';
import { itemId, jobKey, planRun, runFingerprint, uploadKey, type PlannedJob, type SourceItem } from './plan';
import type { Progress } from './progress';
import { failureOf, RequestGate } from './request-gate';
import type { SourceFile, SourceProblem } from './sources';
import { loadState, stateScope, StateWriter, type RunState, type UploadRecord } from './state-file';
import { createBody, type ToolRequest } from './tool-requests';

/** An upload this close to its expiry is made again rather than named in a create. */
const UPLOAD_EXPIRY_MARGIN_MS = 5 * 60 * 1000;
/** Tries of a result download (a network failure or a 5xx), not counting the first. */
const DOWNLOAD_RETRIES = 3;
/** `external_id` holds 1 to 200 characters (spec 8). */
const MAX_EXTERNAL_ID = 200;

export interface RunSettings {
  request: ToolRequest;
  sources: readonly SourceFile[];
  /** Files named on the command line that cannot be sent: each fails alone, by its path. */
  problems: readonly SourceProblem[];
  outDir: string;
  batchSize: number;
  maxActiveJobs: number;
  baseUrl: string;
  apiKey: string;
}

export interface RunOutcome {
  total: number;
  /** Results written by an earlier run and left alone. */
  skipped: number;
  written: string[];
  failed: Array<{ name: string; reason: string }>;
  creditsUsed: number;
  /** Why the run stopped creating jobs before the end (no credits left, key refused...), if it did. */
  halted: string | null;
}

export interface RunDependencies {
  api: JobsApi;
  progress: Progress;
  pacing: Pacing;
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
}

/** The label a source is sent with: its output stem, shortened with a hash when over the limit. */
export const externalIdOf = (stem: string): string =>
  stem.length <= MAX_EXTERNAL_ID ? stem : `${stem.slice(0, MAX_EXTERNAL_ID - 17)}-${sha256Hex(stem).slice(0, 16)}`;

/** A failure in the service's own words, with the fields an invalid request named and why (`path: message`). */
function describeFailure(failure: RequestFailure): string {
  if (failure.status <= 0) return failure.message;
  const fields = Array.isArray(failure.details?.errors) ? (failure.details.errors as FieldProblem[]) : [];
  const named = fields.map((field) => `${field.path}: ${field.message}`).join('; ');
  return `${failure.code}: ${failure.message}${named ? ` (${named})` : ''}`;
}

interface FieldProblem {
  path: string;
  message: string;
}

/**
 * Refusals of one file's upload that concern that file alone (not an image, empty, over the
 * service's byte or pixel limits, an upload of its key still being stored, or the file changing
 * or vanishing locally): the file fails by its path and its job goes on without it.
 */
const FILE_REFUSAL_STATUSES = new Set([-1, 400, 409, 413, 415]);

/** Refusals that concern every job of the run, not one: nothing more is created after one of them. */
const RUN_WIDE_CODES = new Set([
  'unauthorized',
  'api_access_disabled',
  'account_restricted',
  'insufficient_credits',
  'invalid_request',
  'tool_unavailable',
]);

/** Whether `name` holds the result of this run for these bytes, as the state recorded it and the disk still has it. */
async function isWritten(state: RunState, outDir: string, name: string, contentHash: string, runKey: string) {
  const record = state.outputs[name];
  if (!record || record.contentHash !== contentHash || record.run !== runKey) return false;
  return (await stat(join(outDir, name)).catch(() => null))?.isFile() ?? false;
}

const runKeyOf = (scope: string, request: ToolRequest): string => `${scope}:${runFingerprint(request)}`;

/** The paths of the sources whose result an earlier run wrote (for the dry run, which changes nothing). */
export async function resultsWrittenBefore(
  request: ToolRequest,
  sources: readonly SourceFile[],
  outDir: string,
  scope: string,
): Promise<Set<string>> {
  const state = await loadState(outDir);
  const written = new Set<string>();
  for (const source of sources) {
    const name = outputName(source.stem, request.format);
    if (await isWritten(state, outDir, name, source.contentHash, runKeyOf(scope, request))) written.add(source.path);
  }
  return written;
}

/** Runs one command over its sources: plans the jobs, then uploads, creates, polls and writes, within the limits. */
export async function runJobs(settings: RunSettings, deps: RunDependencies): Promise<RunOutcome> {
  return new JobRun(settings, deps).run();
}

class JobRun {
  private readonly now: () => number;
  private readonly gate: RequestGate;
  private readonly scope: string;
  private readonly runKey: string;
  private readonly sourceById = new Map<string, SourceFile>();
  private writer!: StateWriter;
  private readonly outcome: RunOutcome;
  /** Jobs of this run created (or being created) and not yet finished. */
  private activeJobs = 0;
  /** The most jobs in flight at once: the flag's, lowered when the key turns out to allow fewer. */
  private activeLimit: number;
  private jobFinished: { promise: Promise<void>; resolve: () => void } = settle();

  constructor(
    private readonly settings: RunSettings,
    private readonly deps: RunDependencies,
  ) {
    this.now = deps.now ?? Date.now;
    this.gate = new RequestGate(
      deps.pacing,
      (reason, until) => deps.progress.waiting(reason, until),
      deps.sleep,
      this.now,
    );
    this.scope = stateScope(settings.baseUrl, settings.apiKey);
    this.runKey = runKeyOf(this.scope, settings.request);
    this.activeLimit = Math.max(1, settings.maxActiveJobs);
    this.outcome = {
      total: settings.sources.length + settings.problems.length,
      skipped: 0,
      written: [],
      failed: [],
      creditsUsed: 0,
      halted: null,
    };
  }

  private itemOf(source: SourceFile): SourceItem {
    return { contentHash: source.contentHash, externalId: externalIdOf(source.stem) };
  }

  private fileOf(item: SourceItem): string {
    const source = this.sourceById.get(itemId(item));
    return outputName(source ? source.stem : item.externalId, this.settings.request.format);
  }

  private counts() {
    return {
      done: this.outcome.skipped + this.outcome.written.length,
      failed: this.outcome.failed.length,
      total: this.outcome.total,
      credits: this.outcome.creditsUsed,
    };
  }

  async run(): Promise<RunOutcome> {
    const { settings } = this;
    await mkdir(settings.outDir, { recursive: true });
    const state = await loadState(settings.outDir);
    this.writer = new StateWriter(settings.outDir, state);
    const items = settings.sources.map((source) => {
      const item = this.itemOf(source);
      this.sourceById.set(itemId(item), source);
      return item;
    });
    const written = new Set<string>();
    for (const item of items) if (await this.isWritten(item)) written.add(itemId(item));
    const { plan, work } = planRun({
      previous: state.runs[this.runKey] ?? { nextGeneration: 0, jobs: [] },
      sources: items,
      written,
      fingerprint: runFingerprint(settings.request),
      batchSize: settings.batchSize,
    });
    state.runs[this.runKey] = plan;
    await this.writer.save();
    this.outcome.skipped = written.size;
    this.deps.progress.start(this.counts());
    for (const problem of settings.problems) this.failSource(problem.path, problem.reason);
    const queue = [...work];
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) await this.processJob(job, written);
    };
    try {
      await Promise.all(Array.from({ length: Math.max(1, settings.maxActiveJobs) }, worker));
    } finally {
      await this.writer.save();
      this.deps.progress.stop();
    }
    return this.outcome;
  }

  private isWritten(item: SourceItem): Promise<boolean> {
    return isWritten(this.writer.state, this.settings.outDir, this.fileOf(item), item.contentHash, this.runKey);
  }

  private fail(item: SourceItem, reason: string): void {
    const name = this.fileOf(item);
    this.outcome.failed.push({ name, reason });
    this.deps.progress.event(`failed ${name}: ${reason}`);
    this.deps.progress.update(this.counts());
  }

  /** A file that cannot be sent, named by its path as the command line named it. */
  private failSource(path: string, reason: string): void {
    this.outcome.failed.push({ name: path, reason });
    this.deps.progress.event(`failed ${path}: ${reason}`);
    this.deps.progress.update(this.counts());
  }

  private async processJob(job: PlannedJob, written: Set<string>): Promise<void> {
    const waiting = job.items.filter((item) => !written.has(itemId(item)) && !job.failed.includes(item.externalId));
    // The items still in the job: a file whose upload is refused leaves it, having failed alone.
    const open = () => waiting.filter((item) => job.items.includes(item));
    try {
      if (job.jobId === null) {
        if (this.outcome.halted) {
          for (const item of open()) this.fail(item, `not sent: ${this.outcome.halted}`);
          return;
        }
        if (!(await this.createJob(job))) return;
      } else await this.takeActiveSlot();
      let finished: JobState;
      try {
        finished = await this.pollUntilFinished(job.jobId as string);
      } finally {
        this.releaseActiveSlot();
      }
      await this.collect(job, finished, open(), written);
    } catch (error) {
      const failure = failureOf(error);
      if (RUN_WIDE_CODES.has(failure.code) && job.jobId === null) this.outcome.halted = describeFailure(failure);
      for (const item of open()) this.fail(item, describeFailure(failure));
    } finally {
      await this.writer.save();
    }
  }

  private usable(upload: UploadRecord): boolean {
    return Date.parse(upload.expiresAt) - this.now() > UPLOAD_EXPIRY_MARGIN_MS;
  }

  /**
   * The `upload://` URL of an item's bytes: the one the state remembers while it lasts, else an
   * upload under the key its bytes make (a run that lost its state gets the same upload back),
   * else, when that one is about to expire, a new upload in its place.
   */
  private async uploadOf(item: SourceItem): Promise<string> {
    const uploads = (this.writer.state.uploads[this.scope] ??= {});
    const known: UploadRecord | undefined = uploads[item.contentHash];
    if (known && this.usable(known)) return known.imageUrl;
    const source = this.sourceById.get(itemId(item));
    if (!source) throw new Error(`${item.externalId}: its file is not on the command line, so it cannot be uploaded`);
    const bytes = await readFile(source.path);
    if (sha256Hex(bytes) !== item.contentHash) throw new Error(`${source.path} changed while the run was going on`);
    const send = (key: string) => this.gate.send('upload', () => this.deps.api.upload(bytes, source.path, key));
    let uploaded = await send(uploadKey(item.contentHash));
    if (!this.usable(uploaded)) uploaded = await send(uploadKey(item.contentHash, uploaded.imageUrl));
    uploads[item.contentHash] = { imageUrl: uploaded.imageUrl, expiresAt: uploaded.expiresAt };
    await this.writer.save();
    return uploaded.imageUrl;
  }

  /**
   * Uploads the job's images and creates it. A file whose upload is refused for itself fails
   * alone, by its path, and leaves the job, whose key is then that of the images left (the same
   * on every run, since the same file is refused the same way); false when none is left.
   */
  private async createJob(job: PlannedJob): Promise<boolean> {
    const images = [];
    for (const item of [...job.items]) {
      try {
        images.push({ imageUrl: await this.uploadOf(item), externalId: item.externalId });
      } catch (error) {
        const failure = failureOf(error);
        if (!FILE_REFUSAL_STATUSES.has(failure.status)) throw error;
        const source = this.sourceById.get(itemId(item));
        job.items = job.items.filter((kept) => kept !== item);
        job.key = jobKey(runFingerprint(this.settings.request), job.generation, job.items);
        await this.writer.save();
        this.failSource(source?.path ?? item.externalId, describeFailure(failure));
      }
    }
    if (job.items.length === 0) return false;
    const body = createBody(this.settings.request, images);
    await this.takeActiveSlot();
    try {
      const created = await this.gate.send(
        'create',
        () => this.deps.api.createJob(this.settings.request.endpoint, body, job.key),
        (failure) => this.waitForActiveJob(failure),
      );
      job.jobId = created.id;
    } catch (error) {
      this.releaseActiveSlot();
      throw error;
    }
    await this.writer.save();
    this.deps.progress.event(`created job ${job.jobId} (${job.items.length} images)`);
    return true;
  }

  /** Waits until this run has fewer jobs in flight than the key allows as far as it knows, and takes a place. */
  private async takeActiveSlot(): Promise<void> {
    while (this.activeJobs >= this.activeLimit) await this.jobFinished.promise;
    this.activeJobs += 1;
  }

  private releaseActiveSlot(): void {
    this.activeJobs -= 1;
    this.jobFinished.resolve();
    this.jobFinished = settle();
  }

  /**
   * A create refused because the key has too many active jobs. When this run has other jobs in
   * flight, the key allows no more than those: the run keeps to that many from now on and waits
   * for one of them to finish (its own polls say when), so the refusal is not met again. When it
   * has none, another client holds the key's slots, and the Retry-After is waited out.
   */
  private async waitForActiveJob(failure: RequestFailure): Promise<boolean> {
    if (failure.code !== 'too_many_active_jobs') return false;
    const others = this.activeJobs - 1;
    if (others > 0) {
      this.activeLimit = others;
      this.activeJobs -= 1;
      this.deps.progress.waiting('waiting for a job of this run to finish (active-job limit)', this.now());
      await this.takeActiveSlot();
      this.deps.progress.waiting(null);
      return true;
    }
    const until = this.now() + Math.max(1, failure.retryAfterSeconds ?? 1) * 1000;
    await this.gate.waitUntil(until, 'waiting for an active job of this key to finish');
    return true;
  }

  private async pollUntilFinished(jobId: string): Promise<JobState> {
    let unchanged = 0;
    let last = '';
    for (;;) {
      const job = await this.gate.send('poll', () => this.deps.api.getJob(jobId));
      if (FINISHED_JOB_STATUSES.has(job.status)) return job;
      const seen = `${job.status}:${job.results.map((result) => result.status).join(',')}`;
      unchanged = seen === last ? unchanged + 1 : 0;
      last = seen;
      await this.deps.sleep(pollGapMs(unchanged));
    }
  }

  private async collect(job: PlannedJob, finished: JobState, open: SourceItem[], written: Set<string>): Promise<void> {
    for (const item of open) {
      const result = finished.results.find((candidate) => candidate.externalId === item.externalId);
      if (!result) {
        this.fail(item, `job ${finished.id} has no result for ${item.externalId}`);
        continue;
      }
      if (result.status !== 'completed' || !result.resultUrl) {
        job.failed.push(item.externalId);
        this.fail(
          item,
          `${result.errorCode ?? result.status}: ${result.errorMessage ?? `the result is ${result.status}`}`,
        );
        continue;
      }
      const name = this.fileOf(item);
      try {
        await this.writeResult(name, await this.download(result.resultUrl));
      } catch (error) {
        // Paid for but not written: the next run downloads it again from the same job.
        this.fail(item, `download failed (run again to retry it): ${failureOf(error).message}`);
        continue;
      }
      this.writer.state.outputs[name] = {
        contentHash: item.contentHash,
        run: this.runKey,
        jobId: finished.id,
        resultId: result.id,
      };
      written.add(itemId(item));
      this.outcome.written.push(name);
      this.outcome.creditsUsed += result.creditsUsed;
      this.deps.progress.event(`wrote ${name}`);
      this.deps.progress.update(this.counts());
    }
  }

  private async download(url: string): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.deps.api.download(url);
      } catch (error) {
        const failure = failureOf(error);
        if (attempt >= DOWNLOAD_RETRIES || !(failure.status === 0 || failure.status >= 500)) throw error;
        await this.deps.sleep(1000 * 2 ** attempt);
      }
    }
  }

  /** Written beside under a temporary name and renamed, so a result file is either whole or absent. */
  private async writeResult(name: string, bytes: Buffer): Promise<void> {
    const path = join(this.settings.outDir, name);
    await writeFile(`${path}.partial`, bytes);
    await rename(`${path}.partial`, path);
  }
}

function settle(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
