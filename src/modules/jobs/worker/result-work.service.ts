import type { OutputFormat } from '../../../core/image/output-format';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import type { QueueJobName, QueuePayloads } from '../../../core/queue/queue-jobs';
import { ImageService } from '../../../core/image/image.service';
import { JobMetrics } from '../../../core/metrics/job.metrics';
import { ResultStorage } from '../../../core/storage/result-storage';
import { ResultErrorCode, ResultFailure, TransientResultFailure } from '../../tools/result-failure';
import { typedTask, type ToolOutput, type ToolTask } from '../../tools/tool-runner';
import { ToolRunners } from '../../tools/tool-runners';
import { JobLifecycleService } from '../job-lifecycle.service';

const CONTENT_TYPES: Record<OutputFormat, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
};

/** BullMQ's reason for a job whose worker stopped renewing its lock too many times. */
const STALLED_REASON = /stalled/i;

/** The code and message of a failed attempt. */
export interface RecordedFailure {
  code: ResultErrorCode;
  message: string;
}

/**
 * A result's queue entry: its payload, and the coded failure of its latest failed attempt.
 * BullMQ keeps only a failure's message (`failedReason`), so the worker keeps the code beside
 * it, and whoever settles the entry later (the sweeper) reports the code the tool gave.
 */
export type ResultEntryData = QueuePayloads[QueueJobName.ProcessResult] & { failure?: RecordedFailure };

/** The failure an attempt's error carries a code for, if any. */
export function codedFailure(error: unknown): RecordedFailure | undefined {
  if (error instanceof ResultFailure || error instanceof TransientResultFailure)
    return { code: error.code, message: error.message };
  return undefined;
}

/**
 * What failed a queue entry that BullMQ gave up on. The recorded failure explains it only when
 * BullMQ kept the same message: a stalled entry's reason is BullMQ's own, not the last attempt's.
 */
export function failureOfEntry(entry: Pick<Job<ResultEntryData>, 'data' | 'failedReason'>): Error {
  const recorded = entry.data.failure;
  if (recorded && recorded.message === entry.failedReason) return new ResultFailure(recorded.code, recorded.message);
  return new Error(entry.failedReason);
}

/**
 * An attempt a stopping worker gave back unfinished: its result is as before the attempt
 * started, and its queue entry is to go back to waiting for another worker.
 */
export class ResultHandedBack extends Error {
  constructor(readonly resultId: string) {
    super(`Result ${resultId} was handed back unfinished by a stopping worker.`);
    this.name = ResultHandedBack.name;
  }
}

/** A promise that rejects with `signal`'s reason once it aborts, and a way to stop listening. */
function whenAborted(signal: AbortSignal): { aborted: Promise<never>; stopListening: () => void } {
  let stopListening = () => undefined as void;
  const reason = () => (signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(reason());
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    stopListening = () => signal.removeEventListener('abort', onAbort);
  });
  return { aborted, stopListening };
}

/** The queue entry an attempt comes from, for the queue-time metrics. */
export interface ResultAttempt {
  queue: string;
  /** Seconds the entry waited for its first attempt; null for any later attempt, whose wait is a retry's backoff. */
  waitedSeconds: number | null;
}

export interface ResultFileKeys {
  resultKey: string;
  thumbnailKey: string;
  /** Null for a run whose tool read no source image. */
  sourcePreviewKey: string | null;
}

/**
 * Where one run of a result writes its image, thumbnail and source preview (when it read a
 * source). Each run has its own keys, so a retried or duplicate run never overwrites a file
 * another run wrote: the result points at the files of the run that completed it, never at an
 * image of one run and a thumbnail or preview of another.
 */
export function resultFileKeys(
  jobId: string,
  resultId: string,
  format: OutputFormat,
  runId: string,
  withSourcePreview: boolean,
): ResultFileKeys {
  return {
    resultKey: `results/${jobId}/${resultId}/${runId}.${format}`,
    thumbnailKey: `results/${jobId}/${resultId}/${runId}.thumb.webp`,
    sourcePreviewKey: withSourcePreview ? `results/${jobId}/${resultId}/${runId}.source.webp` : null,
  };
}

/**
 * One result's work: run the tool within the result's time limit, store the image and its
 * thumbnail, settle. Errors are thrown so BullMQ retries; the result is failed only once its
 * last attempt has failed.
 */
@Injectable()
export class ResultWorkService {
  private readonly logger = new Logger(ResultWorkService.name);
  /** Tool runs not yet settled, including those an attempt stopped waiting for (time limit, hand-back). */
  private readonly runs = new Set<Promise<unknown>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lifecycle: JobLifecycleService,
    private readonly tools: ToolRunners,
    private readonly images: ImageService,
    private readonly storage: ResultStorage,
    private readonly metrics: JobMetrics,
  ) {}

  /**
   * One attempt of a result. When `handBack` aborts before the result is settled, the tool run
   * and any write under way are stopped, the attempt is undone (`JobLifecycleService.handBack`)
   * and `ResultHandedBack` is thrown: whatever the abort made the tool throw (a download cut
   * short looks like a failed one), the result did not fail.
   */
  async perform(resultId: string, attempt: ResultAttempt, handBack: AbortSignal): Promise<void> {
    const starting = performance.now();
    const task = await this.lifecycle.start(resultId);
    if (!task) return;
    this.metrics.resultStep(task.tool, 'start', (performance.now() - starting) / 1000);
    if (attempt.waitedSeconds !== null) this.metrics.resultWaited(attempt.queue, task.tool, attempt.waitedSeconds);
    const startedAt = performance.now();
    try {
      await this.produce(task, handBack);
    } catch (error) {
      if (!handBack.aborted) throw error;
      await this.lifecycle.handBack(resultId);
      throw new ResultHandedBack(resultId);
    } finally {
      this.metrics.resultProcessed(attempt.queue, task.tool, (performance.now() - startedAt) / 1000);
    }
  }

  /**
   * Waits until every tool run has ended, at most `timeoutMs`; resolves with how many still run.
   * A run an attempt stopped waiting for may still be using a model, which must outlive it.
   */
  async runsSettled(timeoutMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, timeoutMs))));
    await Promise.race([Promise.allSettled([...this.runs]), waited]);
    clearTimeout(timer);
    return this.runs.size;
  }

  /** Runs the tool, stores its image, thumbnail and source preview, and completes the result. */
  private async produce(stored: ToolTask, handBack: AbortSignal): Promise<void> {
    const task = typedTask(stored);
    const runner = this.tools.runnerFor(task);
    if (!runner) {
      throw new ResultFailure(ResultErrorCode.ProviderError, `No ${task.tool} pipeline is configured on this worker.`);
    }
    const output = await this.withinTimeLimit((signal) => runner.run(task, signal), handBack);
    const runId = randomBytes(8).toString('hex');
    const keys = resultFileKeys(task.jobId, task.resultId, output.format, runId, output.sourcePreview !== undefined);
    const storing = performance.now();
    try {
      await this.store(keys, output, handBack);
      this.metrics.resultStep(task.tool, 'store', (performance.now() - storing) / 1000);
      // Handed back while its files were written: the next attempt writes its own.
      handBack.throwIfAborted();
    } catch (error) {
      await this.removeFiles(keys);
      throw error;
    }
    // Another run settled the result first: this run's files would be orphans.
    const completing = performance.now();
    const completed = await this.lifecycle.complete(task.resultId, keys, output);
    this.metrics.resultStep(task.tool, 'complete', (performance.now() - completing) / 1000);
    if (!completed) await this.removeFiles(keys);
  }

  /** Settles a result whose work will not be retried, releasing its credits. */
  async settleFailure(resultId: string, error: unknown): Promise<void> {
    const { code, message } = this.describeFailure(error);
    const settled = await this.lifecycle.fail(resultId, code, message);
    if (settled) this.logger.warn({ result_id: resultId, code, err: error }, 'result failed');
  }

  /**
   * Runs the tool with an abort signal. Past RESULT_TIMEOUT_SECONDS the attempt fails with
   * `timeout`, and once `handBack` aborts it ends with the hand-back's reason, whatever the tool
   * does; either way the tool is told to stop, and its run is kept track of until it has.
   */
  private async withinTimeLimit(
    work: (signal: AbortSignal) => Promise<ToolOutput>,
    handBack: AbortSignal,
  ): Promise<ToolOutput> {
    const seconds = this.config.RESULT_TIMEOUT_SECONDS;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new ResultFailure(ResultErrorCode.Timeout, `The result took longer than ${seconds} s and was stopped.`));
      }, seconds * 1000);
    });
    const handedBack = whenAborted(handBack);
    handedBack.aborted.catch(() => controller.abort());
    try {
      handBack.throwIfAborted();
      const run = work(controller.signal);
      this.runs.add(run);
      const forget = () => this.runs.delete(run);
      run.then(forget, forget);
      return await Promise.race([run, expired, handedBack.aborted]);
    } finally {
      clearTimeout(timer);
      handedBack.stopListening();
    }
  }

  private async store(keys: ResultFileKeys, output: ToolOutput, signal: AbortSignal): Promise<void> {
    const thumbnail = output.thumbnail ?? (await this.images.thumbnail(output.image));
    // Every write ends before the caller removes the files of a failed one: a write still under
    // way would otherwise put its file back after the removal.
    const writes = await Promise.allSettled([
      this.storage.put(keys.resultKey, output.image, CONTENT_TYPES[output.format], signal),
      this.storage.put(keys.thumbnailKey, thumbnail, 'image/webp', signal),
      ...(keys.sourcePreviewKey && output.sourcePreview
        ? [this.storage.put(keys.sourcePreviewKey, output.sourcePreview, 'image/webp', signal)]
        : []),
    ]);
    const failed = writes.find((write): write is PromiseRejectedResult => write.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async removeFiles(keys: ResultFileKeys): Promise<void> {
    const stored = [keys.resultKey, keys.thumbnailKey, keys.sourcePreviewKey].filter((key) => key !== null);
    await Promise.all(stored.map((key) => this.storage.delete(key))).catch((error: unknown) => {
      this.logger.warn({ err: error, key: keys.resultKey }, 'could not remove the files of an unused run');
    });
  }

  private describeFailure(error: unknown): RecordedFailure {
    const coded = codedFailure(error);
    if (coded) return coded;
    const reason = error instanceof Error ? error.message : String(error);
    if (STALLED_REASON.test(reason)) {
      return { code: ResultErrorCode.Timeout, message: 'The result did not finish in time and was given up.' };
    }
    return { code: ResultErrorCode.ProcessingFailed, message: 'Processing failed after every retry.' };
  }
}
