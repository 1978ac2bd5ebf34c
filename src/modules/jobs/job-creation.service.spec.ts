import type { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import type { JobMetrics } from '../../core/metrics/job.metrics';
import type { OutboundHttps } from '../../core/outbound/outbound.module';
import type { AccountsRepository } from '../accounts/accounts.repository';
import { KeyEnvironment } from '../auth/api-key.entity';
import type { CapacityDemand, CapacityService } from '../capacity/capacity.service';
import type { CatalogService } from '../catalog/catalog.service';
import { ToolId } from '../catalog/tools';
import type { CreditsService } from '../credits/credits.service';
import type { IdempotencyService } from '../idempotency/idempotency.service';
import type { RateLimitService } from '../rate-limit/rate-limit.service';
import type { RateLimitDecision } from '../rate-limit/rate-limit.types';
import type { ToolAvailabilityService } from '../catalog/tool-availability';
import type { JobRequest } from './dto/job-request';
import type { LiveEventsPublisher } from '../live-events/live-events.publisher';
import type { ReviewsService } from '../reviews/reviews.service';
import { JobCreationService, type CreateJobCommand } from './job-creation.service';
import type { Job } from './job.entity';
import { JobKind } from './job-status';
import { JobsRepository } from './jobs.repository';
import type { ResultQueueProducer } from './result-queue.producer';
import { refusalOf } from '../../../test/support/domain-errors';

const manager = {} as EntityManager;
const dataSource = {
  transaction: <T>(work: (m: EntityManager) => Promise<T>) => work(manager),
} as unknown as DataSource;

const allowed: RateLimitDecision = {
  allowed: true,
  limit: 10,
  remaining: 9,
  resetSeconds: 60,
  retryAfterSeconds: null,
  scope: 'key',
  token: 'slot-1',
};
const refused: RateLimitDecision = { ...allowed, allowed: false, remaining: 0, retryAfterSeconds: 30 };

const request: JobRequest = {
  tool: ToolId.ImageEditing,
  costKey: 'image_editing',
  sources: [
    { imageUrl: 'https://images.example/a.jpg', externalId: 'a', subjectHints: null },
    { imageUrl: 'https://images.example/b.jpg', externalId: 'b', subjectHints: null },
  ],
  format: 'png',
  options: { operations: {}, output: { number_of_images: 2 } },
  webhookUrl: null,
};

function command(environment = KeyEnvironment.Live): CreateJobCommand {
  return {
    caller: { keyId: 'key-1', accountId: 'acc-1', environment },
    endpoint: 'POST /v1/image-editing',
    kind: JobKind.Standard,
    request,
    idempotencyKey: 'idem-1',
    requestHash: 'hash-1',
    clientIp: '203.0.113.1',
  };
}

describe(JobCreationService.name, () => {
  let calls: string[];
  let balance: number | null;
  let replayOf: string | null;
  let decision: RateLimitDecision;
  let toolAvailable: boolean;
  let capacityRefusal: DomainError | null;
  let demands: CapacityDemand[];
  let refunds: string[];
  let creation: JobCreationService;

  beforeEach(() => {
    calls = [];
    balance = 100;
    replayOf = null;
    decision = allowed;
    toolAvailable = true;
    capacityRefusal = null;
    demands = [];
    refunds = [];
    const accounts = {
      lockBalance: async () => (calls.push('lock account'), balance),
    } as unknown as AccountsRepository;
    const idempotency = { claim: async () => (calls.push('claim key'), replayOf) } as unknown as IdempotencyService;
    const rateLimits = {
      windowSeconds: 3600,
      consume: async () => (calls.push('rate limit'), decision),
      refund: async (_: unknown, __: unknown, token: string) => (refunds.push(token), decision),
    } as unknown as RateLimitService;
    const capacity = {
      admit: async (_: EntityManager, demand: CapacityDemand) => {
        calls.push('admit capacity');
        demands.push(demand);
        if (capacityRefusal) throw capacityRefusal;
      },
      reserve: async () => void calls.push('reserve capacity'),
    } as unknown as CapacityService;
    const credits = {
      reserve: async (_: EntityManager, __: string, ___: string, amount: number) => (
        calls.push(`reserve ${amount}`),
        (balance ?? 0) - amount
      ),
      balance: async () => 42,
    } as unknown as CreditsService;
    const catalog = {
      priceFor: async () => (calls.push('price'), { costKey: 'image_editing', credits: 3, pricingVersion: 7 }),
    } as unknown as CatalogService;
    const tools = { isAvailable: () => toolAvailable } as unknown as ToolAvailabilityService;
    // Building the rows is plain code; only the statements are replaced.
    const built = new JobsRepository(dataSource);
    const jobs = {
      buildJob: built.buildJob.bind(built),
      buildResults: built.buildResults.bind(built),
      insertNew: async () => void calls.push('insert job'),
      findOwned: async (): Promise<Partial<Job>> => ({ id: replayOf ?? undefined }),
    } as unknown as JobsRepository;
    const queue = { enqueue: async () => void calls.push('enqueue') } as unknown as ResultQueueProducer;
    const outbound = { customer: { urlViolation: () => null } } as unknown as OutboundHttps;
    const metrics = { admissionRefused: jest.fn(), jobCreated: jest.fn() } as unknown as JobMetrics;
    creation = new JobCreationService(
      dataSource,
      accounts,
      idempotency,
      rateLimits,
      capacity,
      credits,
      catalog,
      tools,
      jobs,
      queue,
      outbound,
      metrics,
      { publish: jest.fn() } as unknown as LiveEventsPublisher,
      {
        claimReplaced: async () => undefined,
        recordRecuts: async () => [],
        dispatch: async () => undefined,
      } as unknown as ReviewsService,
    );
  });

  it('admits in the contract order and reserves the capacity slots last in the transaction', async () => {
    const created = await creation.create(command());
    expect(calls).toEqual([
      'price',
      'rate limit',
      'claim key',
      'lock account',
      'admit capacity',
      'insert job',
      'reserve 12',
      'reserve capacity',
      'enqueue',
    ]);
    expect(created).toMatchObject({ replayed: false, remainingPaidCredits: 88 });
    expect(created.job).toMatchObject({ totalResults: 4, creditsPerResult: 3, creditsReserved: 12, pricingVersion: 7 });
    expect(demands).toEqual([{ accountId: 'acc-1', keyId: 'key-1', sandbox: false, group: 'processing', results: 4 }]);
  });

  it('answers a replay with the earlier job, before any limit, and gives the rate-limit slot back', async () => {
    replayOf = 'job-0';
    decision = refused;
    const created = await creation.create(command());
    expect(created).toMatchObject({ replayed: true, remainingPaidCredits: 42, job: { id: 'job-0' } });
    expect(calls).toEqual(['price', 'rate limit', 'claim key']);
    expect(refunds).toEqual(['slot-1']);
  });

  it('refuses a tool the deployment cannot run before the rate limit applies', async () => {
    toolAvailable = false;
    decision = refused;
    expect((await refusalOf(creation.create(command()))).code).toBe(ErrorCode.ToolUnavailable);
    expect(calls).not.toContain('lock account');
  });

  it('refuses over the rate limit before locking the account', async () => {
    decision = refused;
    const refusal = await refusalOf(creation.create(command()));
    expect(refusal.code).toBe(ErrorCode.RateLimitExceeded);
    expect(refusal.retryAfterSeconds).toBe(30);
    expect(calls).not.toContain('lock account');
  });

  it('refuses at capacity before looking at credits, and gives the rate-limit slot back', async () => {
    capacityRefusal = new DomainError(ErrorCode.CapacityUnavailable, 'full');
    balance = 0;
    expect((await refusalOf(creation.create(command()))).code).toBe(ErrorCode.CapacityUnavailable);
    expect(refunds).toEqual(['slot-1']);
  });

  it('refuses a job that needs more credits than the balance, writing nothing', async () => {
    balance = 11;
    const refusal = await refusalOf(creation.create(command()));
    expect(refusal.code).toBe(ErrorCode.InsufficientCredits);
    expect(refusal.details).toEqual({ required: 12, available: 11 });
    expect(calls).not.toContain('insert job');
    expect(refunds).toEqual(['slot-1']);
  });

  it('charges nothing for a sandbox job and reserves no credits', async () => {
    balance = 0;
    const created = await creation.create(command(KeyEnvironment.Sandbox));
    expect(created.job).toMatchObject({ sandbox: true, creditsPerResult: 0, creditsReserved: 0 });
    expect(created.remainingPaidCredits).toBe(0);
    expect(calls.filter((call) => /^reserve \d/.test(call))).toEqual([]);
  });

  it('treats an account gone since the key was checked as an invalid key', async () => {
    balance = null;
    expect((await refusalOf(creation.create(command()))).code).toBe(ErrorCode.Unauthorized);
  });
});
