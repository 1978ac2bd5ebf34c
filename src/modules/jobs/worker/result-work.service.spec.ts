import { Logger } from '@nestjs/common';
import { closedPort } from '../../../../test/support/loopback-http';
import { capturedLog } from '../../../../test/support/captured-log';
import { loadConfig } from '../../../core/config/load-config';
import type { ImageService } from '../../../core/image/image.service';
import type { RawImage } from '../../../engine/raw-image';
import type { JobMetrics } from '../../../core/metrics/job.metrics';
import { OutboundHttps } from '../../../core/outbound/outbound-https';
import { RemoteSegmenter } from '../../../core/segmentation/remote-segmenter';
import type { ResultStorage } from '../../../core/storage/result-storage';
import { ResultErrorCode, ResultFailure, TransientResultFailure } from '../../tools/result-failure';
import { asResultFailure } from '../../tools/shared/failure-translation';
import type { ToolRunners } from '../../tools/tool-runners';
import type { JobLifecycleService } from '../job-lifecycle.service';
import type { ToolOutput } from '../../tools/tool-runner';
import { codedFailure, failureOfEntry, ResultWorkService, type ResultFileKeys } from './result-work.service';

describe(failureOfEntry.name, () => {
  const blocked = { code: ResultErrorCode.SourceBlocked, message: 'The source resolves to a private address.' };

  it('gives back the recorded code and message of the failure BullMQ kept', () => {
    const failure = failureOfEntry({ data: { resultId: 'r', failure: blocked }, failedReason: blocked.message });
    expect(failure).toBeInstanceOf(ResultFailure);
    expect(failure).toMatchObject(blocked);
  });

  it('ignores a recorded failure that is not the one BullMQ kept (the entry stalled afterwards)', () => {
    const reason = 'job stalled more than allowable limit';
    const failure = failureOfEntry({ data: { resultId: 'r', failure: blocked }, failedReason: reason });
    expect(failure).not.toBeInstanceOf(ResultFailure);
    expect(failure.message).toBe(reason);
  });

  it('falls back to the message alone when no code was recorded', () => {
    const failure = failureOfEntry({ data: { resultId: 'r' }, failedReason: 'boom' });
    expect(failure).not.toBeInstanceOf(ResultFailure);
    expect(failure.message).toBe('boom');
  });
});

describe(codedFailure.name, () => {
  it('keeps the code of permanent and transient failures, and nothing for other errors', () => {
    expect(codedFailure(new ResultFailure(ResultErrorCode.SourceNotImage, 'not an image'))).toEqual({
      code: ResultErrorCode.SourceNotImage,
      message: 'not an image',
    });
    expect(codedFailure(new TransientResultFailure(ResultErrorCode.SourceFetchFailed, '503'))).toEqual({
      code: ResultErrorCode.SourceFetchFailed,
      message: '503',
    });
    expect(codedFailure(new Error('boom'))).toBeUndefined();
  });
});

describe(ResultWorkService.name, () => {
  afterEach(() => jest.restoreAllMocks());

  describe('settleFailure', () => {
    it("records the client's message and logs what it leaves out: a down segmenter's address and code", async () => {
      const port = await closedPort();
      const outbound = new OutboundHttps(loadConfig({}), {});
      const segmenterUrl = new URL(`http://127.0.0.1:${port}/segment`);
      const segmenter = new RemoteSegmenter(
        { url: segmenterUrl, timeoutSeconds: 5, model: 'remote' },
        outbound.operatorDestination(segmenterUrl),
      );
      const image: RawImage = { data: Buffer.alloc(4 * 4 * 3), width: 4, height: 4, channels: 3 };
      const failure = await segmenter.segment(image, new AbortController().signal).then(
        () => new Error('the segmenter answered'),
        (error: unknown) => asResultFailure(error),
      );
      outbound.onModuleDestroy();

      const fail = jest.fn().mockResolvedValue(true);
      const work = new ResultWorkService(
        loadConfig({}),
        { fail } as unknown as JobLifecycleService,
        {} as ToolRunners,
        {} as ImageService,
        {} as ResultStorage,
        {} as JobMetrics,
      );
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      await work.settleFailure('result-1', failure);

      const message = 'The segmentation service refused the connection.';
      expect(fail).toHaveBeenCalledWith('result-1', ResultErrorCode.ProviderError, message);
      expect(warn).toHaveBeenCalledTimes(1);
      const log = capturedLog();
      log.logger.warn(warn.mock.calls[0][0] as object, String(warn.mock.calls[0][1]));
      const line = log.text();
      expect(JSON.parse(line)).toMatchObject({ result_id: 'result-1', code: 'provider_error', msg: 'result failed' });
      expect(line).toContain(message);
      expect(line).toContain(`connect ECONNREFUSED 127.0.0.1:${port}`);
      expect(JSON.parse(line).err.cause.cause).toMatchObject({
        code: 'ECONNREFUSED',
        address: '127.0.0.1',
        port,
        syscall: 'connect',
      });
    });
  });

  describe('perform', () => {
    const task = { jobId: 'job-1', resultId: 'result-1', tool: 'image_editing', format: 'png', options: {} };
    const attempt = { queue: 'tools', waitedSeconds: null };

    /** A worker whose tool gives `output`, whose storage fails a put of a key ending `failing`, and what it did. */
    function workerWith(output: ToolOutput, failing?: string) {
      const stored = new Map<string, { bytes: Buffer; contentType: string }>();
      const deleted: string[] = [];
      const complete = jest.fn().mockResolvedValue(true);
      const storage = {
        put: jest.fn(async (key: string, bytes: Buffer, contentType: string) => {
          if (failing && key.endsWith(failing)) throw new Error('storage unavailable');
          stored.set(key, { bytes, contentType });
        }),
        delete: jest.fn(async (key: string) => void deleted.push(key)),
      };
      const work = new ResultWorkService(
        loadConfig({}),
        { start: jest.fn().mockResolvedValue(task), complete } as unknown as JobLifecycleService,
        { runnerFor: () => ({ run: async () => output }) } as unknown as ToolRunners,
        { thumbnail: async () => Buffer.from('thumbnail') } as unknown as ImageService,
        storage as unknown as ResultStorage,
        { resultStep: jest.fn(), resultWaited: jest.fn(), resultProcessed: jest.fn() } as unknown as JobMetrics,
      );
      return { work, stored, deleted, complete };
    }

    it("stores the source's preview beside the run's image and thumbnail, and completes with its key", async () => {
      const output = { image: Buffer.from('image'), format: 'png' as const, sourcePreview: Buffer.from('preview') };
      const { work, stored, complete } = workerWith(output);
      await work.perform('result-1', attempt, new AbortController().signal);

      const [[, keys]] = complete.mock.calls as Array<[string, ResultFileKeys]>;
      const run = /^results\/job-1\/result-1\/([0-9a-f]{16})\.png$/.exec(keys.resultKey)?.[1];
      expect(keys).toEqual({
        resultKey: `results/job-1/result-1/${run}.png`,
        thumbnailKey: `results/job-1/result-1/${run}.thumb.webp`,
        sourcePreviewKey: `results/job-1/result-1/${run}.source.webp`,
      });
      expect(stored.get(keys.sourcePreviewKey as string)).toEqual({
        bytes: Buffer.from('preview'),
        contentType: 'image/webp',
      });
      expect(stored.size).toBe(3);
    });

    it('writes no preview for a result made without a source', async () => {
      const { work, stored, complete } = workerWith({ image: Buffer.from('image'), format: 'png' });
      await work.perform('result-1', attempt, new AbortController().signal);

      const [[, keys]] = complete.mock.calls as Array<[string, ResultFileKeys]>;
      expect(keys.sourcePreviewKey).toBeNull();
      expect(stored.size).toBe(2);
    });

    it('deletes every file of the run, the preview included, when one of its writes fails', async () => {
      const output = { image: Buffer.from('image'), format: 'png' as const, sourcePreview: Buffer.from('preview') };
      const { work, deleted, complete } = workerWith(output, '.thumb.webp');
      await expect(work.perform('result-1', attempt, new AbortController().signal)).rejects.toThrow(
        'storage unavailable',
      );

      expect(complete).not.toHaveBeenCalled();
      expect(deleted.map((key) => key.replace(/[0-9a-f]{16}/, 'run')).sort()).toEqual([
        'results/job-1/result-1/run.png',
        'results/job-1/result-1/run.source.webp',
        'results/job-1/result-1/run.thumb.webp',
      ]);
    });
  });
});
