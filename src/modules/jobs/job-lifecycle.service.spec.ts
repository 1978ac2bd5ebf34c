import type { DataSource, EntityManager } from 'typeorm';
import type { JobMetrics } from '../../core/metrics/job.metrics';
import type { CapacityService } from '../capacity/capacity.service';
import { CapacityGroup, ToolId } from '../catalog/tools';
import type { CreditsService } from '../credits/credits.service';
import type { EventJob, EventResult, RecordedDelivery, WebhookOutbox } from '../webhooks/webhook-outbox.service';
import type { LiveEventsPublisher } from '../live-events/live-events.publisher';
import { JobLifecycleService } from './job-lifecycle.service';
import { ResultErrorCode } from '../tools/result-failure';
import { JobStatus, ResultStatus } from './job-status';
import type {
  CancelledJob,
  CancelledResult,
  CountedJob,
  JobStateRepository,
  SettledCounts,
  SettledResult,
  StartedJob,
  StartedResult,
} from './job-state.repository';

const ACTIVE: ReadonlySet<string> = new Set([ResultStatus.Queued, ResultStatus.Processing]);

interface FakeResult {
  status: ResultStatus;
  creditsReserved: number;
}

/**
 * One job of results in memory, with the conditional updates of the repository: a transition
 * from a state the row is not in changes nothing. `calls` logs every statement, for the lock order.
 */
class FakeJobStates implements JobStateRepository {
  readonly calls: string[];
  job = {
    status: JobStatus.Queued as JobStatus,
    sandbox: false,
    completed: 0,
    failed: 0,
    cancelled: 0,
    creditsUsed: 0,
  };
  readonly results = new Map<string, FakeResult>();

  constructor(calls: string[], resultCount: number, creditsPerResult: number) {
    this.calls = calls;
    for (let index = 0; index < resultCount; index++) {
      this.results.set(`result-${index}`, { status: ResultStatus.Queued, creditsReserved: creditsPerResult });
    }
  }

  private settled(resultId: string): SettledResult {
    const result = this.results.get(resultId) as FakeResult;
    return {
      jobId: 'job-1',
      accountId: 'acc-1',
      externalId: null,
      creditsReserved: result.creditsReserved,
      capacityGroup: CapacityGroup.Processing,
      sandbox: this.job.sandbox,
    };
  }

  private move(resultId: string, from: ReadonlySet<string>, to: ResultStatus): boolean {
    const result = this.results.get(resultId);
    if (!result || !from.has(result.status)) return false;
    result.status = to;
    return true;
  }

  async lockJobOfResult(_: EntityManager, resultId: string) {
    this.calls.push('lock job');
    return this.results.has(resultId) ? this.job.status : null;
  }
  async startResult(_: EntityManager, resultId: string): Promise<StartedResult | null> {
    this.calls.push('start result');
    if (!this.move(resultId, ACTIVE, ResultStatus.Processing)) return null;
    return {
      jobId: 'job-1',
      accountId: 'account-1',
      index: 0,
      sandbox: this.job.sandbox,
      externalId: null,
      sourceImageUrl: 'https://x/a.jpg',
      subjectHints: null,
    };
  }
  async handBackResult(_: EntityManager, resultId: string) {
    this.calls.push('hand back result');
    return this.move(resultId, new Set([ResultStatus.Processing]), ResultStatus.Queued);
  }
  async markJobProcessing(): Promise<StartedJob> {
    this.calls.push('job processing');
    if (this.job.status === JobStatus.Queued) this.job.status = JobStatus.Processing;
    return { api: ToolId.ImageEditing, outputFormat: 'png', options: {} };
  }
  async completeResult(_: EntityManager, resultId: string) {
    this.calls.push('complete result');
    return this.move(resultId, new Set([ResultStatus.Processing]), ResultStatus.Completed)
      ? { ...this.settled(resultId), flagged: false, reviewState: null, replacesResultId: null }
      : null;
  }
  async failResult(_: EntityManager, resultId: string) {
    this.calls.push('fail result');
    return this.move(resultId, ACTIVE, ResultStatus.Failed) ? this.settled(resultId) : null;
  }
  async cancelResult(_: EntityManager, resultId: string): Promise<CancelledResult | null> {
    this.calls.push('cancel result');
    return this.move(resultId, ACTIVE, ResultStatus.Cancelled)
      ? { ...this.settled(resultId), api: ToolId.ImageEditing }
      : null;
  }
  async cancelJob(): Promise<CancelledJob | null> {
    this.calls.push('cancel job');
    if (!ACTIVE.has(this.job.status)) return null;
    this.job.status = JobStatus.Cancelled;
    return {
      accountId: 'acc-1',
      api: ToolId.ImageEditing,
      capacityGroup: CapacityGroup.Processing,
      sandbox: this.job.sandbox,
    };
  }
  async cancelQueuedResults() {
    this.calls.push('cancel queued results');
    const queued = [...this.results.values()].filter((result) => result.status === ResultStatus.Queued);
    for (const result of queued) result.status = ResultStatus.Cancelled;
    return { results: queued.length, credits: queued.reduce((sum, result) => sum + result.creditsReserved, 0) };
  }
  async countCancelledResults(_: EntityManager, __: string, results: number) {
    this.calls.push('count cancelled');
    this.job.cancelled += results;
  }
  async countSettlement(_: EntityManager, __: string, counts: SettledCounts): Promise<CountedJob> {
    this.calls.push('count settlement');
    this.job.completed += counts.completed;
    this.job.failed += counts.failed;
    this.job.cancelled += counts.cancelled;
    this.job.creditsUsed += counts.creditsUsed;
    return {
      accountId: 'acc-1',
      api: ToolId.ImageEditing,
      status: this.job.status,
      sandbox: this.job.sandbox,
      webhookUrl: 'https://hooks.example/1',
      totalResults: this.results.size,
      completedResults: this.job.completed,
      failedResults: this.job.failed,
      cancelledResults: this.job.cancelled,
    };
  }
  async endJob(_: EntityManager, __: string, status: JobStatus) {
    this.calls.push(`end job ${status}`);
    if (!ACTIVE.has(this.job.status)) return false;
    this.job.status = status;
    return true;
  }
}

const manager = {} as EntityManager;
const dataSource = {
  transaction: <T>(work: (m: EntityManager) => Promise<T>) => work(manager),
} as unknown as DataSource;

describe(JobLifecycleService.name, () => {
  let calls: string[];
  let states: FakeJobStates;
  let events: Array<{ job: EventJob; result?: EventResult }>;
  let dispatched: RecordedDelivery[];
  let lifecycle: JobLifecycleService;

  function setUp(resultCount: number, creditsPerResult = 3): void {
    calls = [];
    events = [];
    dispatched = [];
    states = new FakeJobStates(calls, resultCount, creditsPerResult);
    const credits = {
      capture: async (_: EntityManager, __: string, ___: string, amount: number) =>
        void calls.push(`capture ${amount}`),
      release: async (_: EntityManager, __: string, ___: string, amount: number) =>
        void calls.push(`release ${amount}`),
    } as unknown as CreditsService;
    const capacity = {
      release: async (_: EntityManager, __: CapacityGroup, results: number) =>
        void calls.push(`release slots ${results}`),
    } as unknown as CapacityService;
    const webhooks = {
      recordResult: async (_: EntityManager, job: EventJob, result: EventResult) => {
        calls.push('record result event');
        events.push({ job, result });
        return [{ id: `delivery-${events.length}`, accountId: job.accountId, firstAttemptAt: new Date(0) }];
      },
      recordJobEnd: async (_: EntityManager, job: EventJob) => {
        calls.push('record job event');
        events.push({ job });
        return [{ id: `delivery-${events.length}`, accountId: job.accountId, firstAttemptAt: new Date(0) }];
      },
      dispatch: async (deliveries: RecordedDelivery[]) => void dispatched.push(...deliveries),
    } as unknown as WebhookOutbox;
    const metrics = { resultsSettled: jest.fn() } as unknown as JobMetrics;
    const liveEvents = { afterCommit: jest.fn() } as unknown as LiveEventsPublisher;
    lifecycle = new JobLifecycleService(dataSource, states, credits, webhooks, capacity, metrics, liveEvents);
  }

  const files = { resultKey: 'r.png', thumbnailKey: 't.webp', sourcePreviewKey: 's.webp' };

  it(
    'starts a queued result: the job row is locked ' + "first, and the task carries the job's tool and format",
    async () => {
      setUp(1);
      const task = await lifecycle.start('result-0');
      expect(task).toMatchObject({ jobId: 'job-1', resultId: 'result-0', tool: ToolId.ImageEditing, format: 'png' });
      expect(calls).toEqual(['lock job', 'start result', 'job processing']);
      expect(states.job.status).toBe(JobStatus.Processing);
    },
  );

  it(
    'cancels, instead of running, a result whose job ' + 'was cancelled while it waited, releasing its credits',
    async () => {
      setUp(1);
      states.job.status = JobStatus.Cancelled;
      expect(await lifecycle.start('result-0')).toBeNull();
      expect(calls).toEqual(['lock job', 'cancel result', 'release 3', 'count cancelled', 'release slots 1']);
    },
  );

  it(
    'completes a result: job, result, account, then capacity ' +
      'last; credits captured and the job ended by its last result',
    async () => {
      setUp(1);
      await lifecycle.start('result-0');
      calls.length = 0;
      const segmentation = { model: 'isnet-general-use', version: 'weights-1', postProcessingVersion: '1' };
      expect(await lifecycle.complete('result-0', files, { uncertainty: 0.12345, segmentation })).toBe(true);
      expect(calls).toEqual([
        'lock job',
        'complete result',
        'capture 3',
        'count settlement',
        `end job ${JobStatus.Completed}`,
        'record result event',
        'record job event',
        'release slots 1',
      ]);
      expect(events[0].result).toMatchObject({
        status: ResultStatus.Completed,
        uncertainty: 0.123,
        segmentation: { model: 'isnet-general-use', version: 'weights-1', post_processing_version: '1' },
      });
      expect(events[1].job.status).toBe(JobStatus.Completed);
      expect(dispatched).toHaveLength(2);
    },
  );

  it(
    'hands back a running result with the job row locked first, ' +
      'moving no credits and recording no event, so the next attempt starts it afresh',
    async () => {
      setUp(1);
      await lifecycle.start('result-0');
      calls.length = 0;
      expect(await lifecycle.handBack('result-0')).toBe(true);
      expect(calls).toEqual(['lock job', 'hand back result']);
      expect(events).toEqual([]);
      expect(dispatched).toEqual([]);
      expect(await lifecycle.start('result-0')).not.toBeNull();
    },
  );

  it('leaves a result settled while it was being handed back as it is', async () => {
    setUp(1);
    await lifecycle.start('result-0');
    await lifecycle.complete('result-0', files, {});
    calls.length = 0;
    expect(await lifecycle.handBack('result-0')).toBe(false);
    expect(calls).toEqual(['lock job', 'hand back result']);
    expect(states.results.get('result-0')?.status).toBe(ResultStatus.Completed);
  });

  it('does not end the job before its last result settles', async () => {
    setUp(2);
    await lifecycle.start('result-0');
    await lifecycle.complete('result-0', files, {});
    expect(states.job.status).toBe(JobStatus.Processing);
    expect(events).toHaveLength(1);
  });

  it(
    'fails a result: its credits go back, and a job with ' + 'one result done and one failed is partially completed',
    async () => {
      setUp(2);
      await lifecycle.start('result-0');
      await lifecycle.complete('result-0', files, {});
      calls.length = 0;
      expect(await lifecycle.fail('result-1', ResultErrorCode.SourceNotImage, 'x'.repeat(2000))).toBe(true);
      expect(calls.slice(0, 3)).toEqual(['lock job', 'fail result', 'release 3']);
      expect(calls[calls.length - 1]).toBe('release slots 1');
      expect(states.job.status).toBe(JobStatus.PartiallyCompleted);
      expect(events[1].result?.errorMessage).toHaveLength(1000);
    },
  );

  it('settles a result once: a second completion or failure changes nothing and dispatches nothing', async () => {
    setUp(1);
    await lifecycle.start('result-0');
    await lifecycle.complete('result-0', files, {});
    calls.length = 0;
    dispatched.length = 0;
    expect(await lifecycle.complete('result-0', files, {})).toBe(false);
    expect(await lifecycle.fail('result-0', ResultErrorCode.SourceNotImage, 'late')).toBe(false);
    expect(calls).toEqual(['lock job', 'complete result', 'lock job', 'fail result']);
    expect(dispatched).toEqual([]);
  });

  it('holds no capacity slot for a sandbox result', async () => {
    setUp(1, 0);
    states.job.sandbox = true;
    await lifecycle.start('result-0');
    await lifecycle.complete('result-0', files, {});
    expect(calls).not.toContain('release slots 1');
  });

  it(
    'cancels a job: its queued results are cancelled and ' + 'their credits and slots given back, running ones left be',
    async () => {
      setUp(3);
      await lifecycle.start('result-0');
      calls.length = 0;
      expect(await lifecycle.cancel(manager, 'job-1')).toBe(true);
      expect(calls).toEqual(['cancel job', 'cancel queued results', 'release 6', 'count cancelled', 'release slots 2']);
      expect(states.results.get('result-0')?.status).toBe(ResultStatus.Processing);
      expect(await lifecycle.cancel(manager, 'job-1')).toBe(false);
    },
  );

  it('cancels a waiting result only when its job is cancelled', async () => {
    setUp(1);
    expect(await lifecycle.cancelWaitingResult('result-0')).toBe(false);
    states.job.status = JobStatus.Cancelled;
    expect(await lifecycle.cancelWaitingResult('result-0')).toBe(true);
    expect(await lifecycle.cancelWaitingResult('result-0')).toBe(false);
  });
});
