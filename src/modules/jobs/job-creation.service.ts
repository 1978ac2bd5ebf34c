import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { withTransactionRetry } from '../../core/database/transaction-retry';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { JobMetrics } from '../../core/metrics/job.metrics';
import { OutboundHttps } from '../../core/outbound/outbound.module';
import { isUploadScheme } from '../../core/uploads/upload-url';
import { AccountsRepository } from '../accounts/accounts.repository';
import { KeyEnvironment } from '../auth/api-key.entity';
import type { AuthContext } from '../auth/auth-context';
import { CapacityService, type CapacityDemand } from '../capacity/capacity.service';
import { CatalogService } from '../catalog/catalog.service';
import { toolDefinition } from '../catalog/tools';
import { CreditsService } from '../credits/credits.service';
import { IdempotencyService, type IdempotentRequest } from '../idempotency/idempotency.service';
import { rateLimitExceeded } from '../rate-limit/rate-limit.headers';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { RateLimitKind, type RateLimitDecision, type RateLimitSubject } from '../rate-limit/rate-limit.types';
import { ToolAvailabilityService } from '../catalog/tool-availability';
import type { JobRequest } from './dto/job-request';
import { Job } from './job.entity';
import { JobResult } from './job-result.entity';
import { jobChanged } from '../live-events/live-event';
import { LiveEventsPublisher } from '../live-events/live-events.publisher';
import { ReviewsService, type RecutLink } from '../reviews/reviews.service';
import type { RecordedDelivery } from '../webhooks/webhook-outbox.service';
import { JobKind, JobStatus } from './job-status';
import { JobsRepository } from './jobs.repository';
import { ResultQueueProducer } from './result-queue.producer';
import { modelNamed } from './segmentation-model-choice';

export interface CreateJobCommand {
  caller: AuthContext;
  /** Method and route, so one key reused on another endpoint is a conflict. */
  endpoint: string;
  kind: JobKind;
  request: JobRequest;
  idempotencyKey: string;
  requestHash: string;
  clientIp: string;
  /** Called as soon as the rate limit has decided, so even refusals carry RateLimit-* headers. */
  onRateLimit?: (decision: RateLimitDecision) => void;
}

export interface CreatedJob {
  job: Job;
  /** True when an earlier request with the same Idempotency-Key created the job. */
  replayed: boolean;
  remainingPaidCredits: number;
}

type Admission =
  | { replayOf: string }
  | { job: Job; results: JobResult[]; remainingPaidCredits: number; deliveries: RecordedDelivery[] };

/** The refusals of admission (contract section 10, and a tool this deployment cannot run), counted by code. */
const ADMISSION_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.ToolUnavailable,
  ErrorCode.RateLimitExceeded,
  ErrorCode.TooManyActiveJobs,
  ErrorCode.TooManyPendingResults,
  ErrorCode.CapacityUnavailable,
  ErrorCode.InsufficientCredits,
]);

const replacedResults = (request: JobRequest): string[] =>
  request.sources.flatMap((source) => (source.replacesResultId ? [source.replacesResultId] : []));

const recutLinks = (results: JobResult[]): RecutLink[] =>
  results.flatMap((result) => (result.replacesResultId ? [{ replaced: result.replacesResultId, by: result.id }] : []));

/**
 * The create path (contract sections 8 to 10): idempotency, rate limit, active jobs, capacity
 * and credits are decided, and the job, its results, the reservation and the idempotency
 * record written, in one transaction (the rate limit is counted in Redis just before it opens,
 * and applied inside it). A refused request leaves nothing behind.
 */
@Injectable()
export class JobCreationService {
  private readonly logger = new Logger(JobCreationService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly idempotency: IdempotencyService,
    private readonly rateLimits: RateLimitService,
    private readonly capacity: CapacityService,
    private readonly credits: CreditsService,
    private readonly catalog: CatalogService,
    private readonly tools: ToolAvailabilityService,
    private readonly jobs: JobsRepository,
    private readonly queue: ResultQueueProducer,
    private readonly outbound: OutboundHttps,
    private readonly metrics: JobMetrics,
    private readonly liveEvents: LiveEventsPublisher,
    private readonly reviews: ReviewsService,
  ) {}

  async create(command: CreateJobCommand): Promise<CreatedJob> {
    this.refuseForbiddenDestinations(command);
    const { caller } = command;
    const sandbox = caller.environment === KeyEnvironment.Sandbox;
    const idempotent: IdempotentRequest = {
      apiKeyId: caller.keyId,
      key: command.idempotencyKey,
      endpoint: command.endpoint,
      requestHash: command.requestHash,
    };
    const subject: RateLimitSubject = { keyId: caller.keyId, accountId: caller.accountId, ip: command.clientIp };

    // Read before the transaction: a second pool connection taken while holding the first
    // would let concurrent creates starve the pool.
    const price = await this.catalog.priceFor(command.request.costKey);
    // The rate limit is a Redis round trip: taken before the transaction, so no idempotency
    // row or account row is held locked while it runs. It is only applied once the key has
    // been claimed (contract section 10: replay or conflict come first), and its slot is given
    // back whenever the request turns out to be a replay or is refused, so a replay never
    // counts against the limit (it holds a slot only for the length of this request).
    const decision = await this.rateLimits.consume(RateLimitKind.Create, subject);
    const jobId = randomUUID();
    let admission: Admission;
    try {
      admission = await withTransactionRetry(this.dataSource, async (manager): Promise<Admission> => {
        const replayOf = await this.idempotency.claim(manager, idempotent, jobId);
        if (replayOf) return { replayOf };

        if (!this.tools.isAvailable(command.request.tool, sandbox)) {
          throw new DomainError(
            ErrorCode.ToolUnavailable,
            `The ${command.request.tool} tool is not available for live keys on this deployment. ` +
              `No credits were reserved.`,
          );
        }

        command.onRateLimit?.(decision);
        if (!decision.allowed) throw rateLimitExceeded(RateLimitKind.Create, decision, this.rateLimits.windowSeconds);

        // Result rows before the account row (the lock order): a re-cut's replaced results.
        await this.reviews.claimReplaced(manager, caller, replacedResults(command.request));

        const totalResults = command.request.sources.length * command.request.options.output.number_of_images;
        const balance = await this.lockAccount(manager, caller.accountId);
        const group = toolDefinition(command.request.tool).capacityGroup;
        const demand: CapacityDemand = {
          accountId: caller.accountId,
          keyId: caller.keyId,
          sandbox,
          group,
          results: totalResults,
        };
        await this.capacity.admit(manager, demand);

        const creditsPerResult = sandbox ? 0 : price.credits;
        const required = creditsPerResult * totalResults;
        if (required > balance) {
          throw new DomainError(
            ErrorCode.InsufficientCredits,
            `This job needs ${required} credits and the account has ${balance}.`,
            { required, available: balance },
          );
        }

        const now = new Date();
        const job = this.jobs.buildJob({
          id: jobId,
          caller,
          sandbox,
          kind: command.kind,
          request: command.request,
          group,
          totalResults,
          creditsPerResult,
          pricingVersion: price.pricingVersion,
          now,
        });
        const results = this.jobs.buildResults(job, command.request);
        await this.jobs.insertNew(manager, job, results);
        const deliveries = await this.reviews.recordRecuts(manager, caller, recutLinks(results));
        const remaining =
          required > 0 ? await this.credits.reserve(manager, caller.accountId, job.id, required) : balance;
        if (remaining === null) throw new Error('reservation failed under the account lock');
        await this.capacity.reserve(manager, demand);
        return { job, results, remainingPaidCredits: remaining, deliveries };
      });
    } catch (error) {
      if (error instanceof DomainError && ADMISSION_REFUSALS.has(error.code)) {
        this.metrics.admissionRefused(command.request.tool, error.code);
      }
      if (decision.token) await this.refund(subject, decision.token);
      throw error;
    }

    if ('replayOf' in admission) {
      if (decision.token) await this.refund(subject, decision.token);
      const job = await this.jobs.findOwned(caller, admission.replayOf);
      if (!job) throw DomainError.notFound('job');
      return { job, replayed: true, remainingPaidCredits: await this.credits.balance(caller.accountId) };
    }
    this.metrics.jobCreated(command.request.tool, caller.environment);
    await this.reviews.dispatch(admission.deliveries);
    // Committed: other pages of the account (another tab, another client) see the new job.
    this.liveEvents.publish([jobChanged({ accountId: caller.accountId, sandbox }, admission.job.id, JobStatus.Queued)]);
    // Committed is what counts: if this enqueue is lost, the sweeper enqueues the results later.
    const segmentationModel = modelNamed(command.request) ?? null;
    const queued = admission.results.map((result) => ({ ...result, segmentationModel }));
    await this.queue.enqueue(queued).catch((error: unknown) => {
      this.logger.warn({ err: error, job_id: admission.job.id }, 'enqueue failed; the sweeper will retry');
    });
    return { job: admission.job, replayed: false, remainingPaidCredits: admission.remainingPaidCredits };
  }

  /**
   * URLs the service would fetch or post to that name a private, loopback or metadata address
   * outright are refused now (contract section 11); names are checked again at connect time.
   */
  private refuseForbiddenDestinations({ kind, request }: CreateJobCommand): void {
    const sourcePath = kind === JobKind.ProductPhoto ? 'images[%].source_url' : 'input[%].image_url';
    const urls = [
      ...request.sources.map((source, index) => ({
        path: sourcePath.replace('%', String(index)),
        url: source.imageUrl,
      })),
      { path: 'webhook_url', url: request.webhookUrl },
    ];
    const errors = urls.flatMap(({ path, url }) => {
      // An upload:// source is read from storage, never fetched, so it names no destination.
      const parsed = url && !isUploadScheme(url) ? URL.parse(url) : null;
      const violation = parsed ? this.outbound.customer.urlViolation(parsed) : null;
      return violation ? [{ path, message: violation }] : [];
    });
    if (errors.length > 0) throw DomainError.invalid(errors);
  }

  /** Serialises one account's creates, so limits and the balance are read and changed in turn. */
  private async lockAccount(manager: EntityManager, accountId: string): Promise<number> {
    const balance = await this.accounts.lockBalance(manager, accountId);
    if (balance === null) throw new DomainError(ErrorCode.Unauthorized, 'The API key is invalid or has been revoked.');
    return balance;
  }

  private async refund(subject: RateLimitSubject, token: string): Promise<void> {
    await this.rateLimits.refund(RateLimitKind.Create, subject, token).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not refund a rate-limit slot');
    });
  }
}
