import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedStatement, runPrepared } from '../../core/database/prepared-statement';
import { KeyEnvironment } from '../auth/api-key.entity';
import type { AuthContext } from '../auth/auth-context';
import type { CapacityGroup, ToolId } from '../catalog/tools';
import type { JobRequest } from './dto/job-request';
import { Job } from './job.entity';
import { JobResult } from './job-result.entity';
import { JobStatus, ResultStatus, type JobKind } from './job-status';

export interface NewJob {
  id: string;
  caller: AuthContext;
  sandbox: boolean;
  kind: JobKind;
  request: JobRequest;
  group: CapacityGroup;
  totalResults: number;
  creditsPerResult: number;
  pricingVersion: number;
  now: Date;
}

export interface JobListFilter {
  limit: number;
  /** Exclusive: jobs older than this one, in listing order. */
  after?: { createdAt: Date; id: string };
  status?: JobStatus;
  api?: ToolId;
}

interface HydratedColumn {
  databaseName: string;
  propertyName: string;
  isDate: boolean;
}

const isSandbox = (caller: AuthContext) => caller.environment === KeyEnvironment.Sandbox;

/**
 * The job and its results in one statement: the create transaction holds the account lock
 * while it runs, so every round trip saved here is time other creates of the account wait.
 */
const INSERT_JOB_AND_RESULTS = preparedStatement(
  'jobs_insert_with_results',
  `WITH job AS (
     INSERT INTO jobs (id, account_id, api_key_id, sandbox, api, kind, capacity_group, status, total_results,
                       credits_reserved, cost_key, pricing_version, credits_per_result, output_format, options,
                       webhook_url, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16, $17, $17)
     RETURNING id)
   INSERT INTO job_results (id, job_id, account_id, sandbox, capacity_group, index, external_id, source_image_url,
                            subject_hints, status, credits_reserved, created_at)
   SELECT r.id, job.id, $2, $4, $7, r.index, r.external_id, r.source_image_url, r.subject_hints, $18, $13, $17
     FROM job, unnest($19::uuid[], $20::int[], $21::text[], $22::text[], $23::jsonb[])
            AS r(id, index, external_id, source_image_url, subject_hints)`,
);

/** A job with its results in one round trip: the hot path of polling clients. */
const OWNED_JOB_WITH_RESULTS = preparedStatement(
  'jobs_owned_with_results',
  `SELECT to_jsonb(j) AS job,
          coalesce((SELECT jsonb_agg(to_jsonb(r) ORDER BY r.index) FROM job_results r WHERE r.job_id = j.id),
                   '[]'::jsonb) AS results
     FROM jobs j WHERE j.id = $1 AND j.account_id = $2 AND j.sandbox = $3`,
);

/**
 * Reads of customer data take the caller, so a job of another account or environment is never
 * found: scoping cannot be forgotten at a call site.
 */
@Injectable()
export class JobsRepository {
  private readonly hydratedColumns = new Map<new () => object, HydratedColumn[]>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Built field by field (no ORM transformation): the create path makes one per request. */
  buildJob(spec: NewJob): Job {
    return Object.assign(new Job(), {
      id: spec.id,
      accountId: spec.caller.accountId,
      apiKeyId: spec.caller.keyId,
      sandbox: spec.sandbox,
      api: spec.request.tool,
      kind: spec.kind,
      capacityGroup: spec.group,
      status: JobStatus.Queued,
      totalResults: spec.totalResults,
      completedResults: 0,
      failedResults: 0,
      cancelledResults: 0,
      creditsReserved: spec.creditsPerResult * spec.totalResults,
      creditsUsed: 0,
      costKey: spec.request.costKey,
      pricingVersion: spec.pricingVersion,
      creditsPerResult: spec.creditsPerResult,
      outputFormat: spec.request.format,
      options: spec.request.options,
      webhookUrl: spec.request.webhookUrl,
      createdAt: spec.now,
      updatedAt: spec.now,
      completedAt: null,
    } satisfies Job);
  }

  async insertNew(manager: EntityManager, job: Job, results: JobResult[]): Promise<void> {
    await runPrepared(manager, INSERT_JOB_AND_RESULTS, [
      job.id,
      job.accountId,
      job.apiKeyId,
      job.sandbox,
      job.api,
      job.kind,
      job.capacityGroup,
      job.status,
      job.totalResults,
      job.creditsReserved,
      job.costKey,
      job.pricingVersion,
      job.creditsPerResult,
      job.outputFormat,
      JSON.stringify(job.options),
      job.webhookUrl,
      job.createdAt,
      ResultStatus.Queued,
      results.map((result) => result.id),
      results.map((result) => result.index),
      results.map((result) => result.externalId),
      results.map((result) => result.sourceImageUrl),
      results.map((result) => (result.subjectHints ? JSON.stringify(result.subjectHints) : null)),
    ]);
  }

  /** N sources x M images, indexed source by source. */
  buildResults(job: Job, request: JobRequest): JobResult[] {
    const perSource = request.options.output.number_of_images;
    return request.sources.flatMap((source, sourceIndex) =>
      Array.from({ length: perSource }, (_, variant) =>
        Object.assign(new JobResult(), {
          id: randomUUID(),
          jobId: job.id,
          accountId: job.accountId,
          sandbox: job.sandbox,
          capacityGroup: job.capacityGroup,
          index: sourceIndex * perSource + variant,
          externalId: source.externalId,
          sourceImageUrl: source.imageUrl,
          subjectHints: source.subjectHints,
          status: ResultStatus.Queued,
          attempts: 0,
          resultKey: null,
          thumbnailKey: null,
          sourcePreviewKey: null,
          errorCode: null,
          errorMessage: null,
          uncertainty: null,
          segmentation: null,
          flagged: false,
          reviewState: null,
          decidedBy: null,
          decidedAt: null,
          reviewNote: null,
          // Written with the link to the replaced result, in the same transaction (ReviewsService.linkRecuts).
          replacesResultId: source.replacesResultId ?? null,
          replacedByResultId: null,
          creditsReserved: job.creditsPerResult,
          creditsUsed: 0,
          createdAt: job.createdAt,
          startedAt: null,
          completedAt: null,
          filesExpiredAt: null,
        } satisfies JobResult),
      ),
    );
  }

  async findOwnedWithResults(caller: AuthContext, jobId: string): Promise<{ job: Job; results: JobResult[] } | null> {
    const [row] = await runPrepared<{ job: Record<string, unknown>; results: Array<Record<string, unknown>> }>(
      this.dataSource,
      OWNED_JOB_WITH_RESULTS,
      [jobId, caller.accountId, isSandbox(caller)],
    );
    if (!row) return null;
    return {
      job: this.hydrate(Job, row.job),
      results: row.results.map((result) => this.hydrate(JobResult, result)),
    };
  }

  findOwned(caller: AuthContext, jobId: string): Promise<Job | null> {
    return this.dataSource
      .getRepository(Job)
      .findOneBy({ id: jobId, accountId: caller.accountId, sandbox: isSandbox(caller) });
  }

  /** Maps a row read as JSON onto an entity through its column metadata (dates become Dates). */
  private hydrate<T extends object>(entity: new () => T, row: Record<string, unknown>): T {
    const target = new entity() as Record<string, unknown>;
    for (const column of this.columnsOf(entity)) {
      const value = row[column.databaseName];
      target[column.propertyName] =
        value !== null && value !== undefined && column.isDate ? new Date(value as string) : value;
    }
    return target as T;
  }

  /** An entity's columns as `hydrate` needs them, looked up once rather than on every read. */
  private columnsOf(entity: new () => object): HydratedColumn[] {
    let columns = this.hydratedColumns.get(entity);
    if (!columns) {
      columns = this.dataSource.getMetadata(entity).columns.map((column) => ({
        databaseName: column.databaseName,
        propertyName: column.propertyName,
        isDate: column.type === 'timestamptz',
      }));
      this.hydratedColumns.set(entity, columns);
    }
    return columns;
  }

  /** Newest first, by (created_at, id), so pages are stable while jobs are being created. */
  async list(caller: AuthContext, filter: JobListFilter): Promise<Job[]> {
    const query = this.dataSource
      .getRepository(Job)
      .createQueryBuilder('job')
      .where('job.account_id = :accountId AND job.sandbox = :sandbox', {
        accountId: caller.accountId,
        sandbox: isSandbox(caller),
      })
      .orderBy('job.created_at', 'DESC')
      .addOrderBy('job.id', 'DESC')
      .limit(filter.limit);
    if (filter.after) {
      query.andWhere('(job.created_at, job.id) < (:afterCreatedAt, :afterId)', {
        afterCreatedAt: filter.after.createdAt,
        afterId: filter.after.id,
      });
    }
    if (filter.status) query.andWhere('job.status = :status', { status: filter.status });
    if (filter.api) query.andWhere('job.api = :api', { api: filter.api });
    return query.getMany();
  }
}
