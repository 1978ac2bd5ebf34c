import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { withTransactionRetry } from '../../core/database/transaction-retry';
import { DomainError } from '../../core/errors/domain-error';
import type { AuthContext } from '../auth/auth-context';
import type { ToolId } from '../catalog/tools';
import { decodeCursor, encodeCursor } from './job-cursor';
import type { Job } from './job.entity';
import type { JobResult } from './job-result.entity';
import { JobKind, type JobStatus } from './job-status';
import { JobLifecycleService } from './job-lifecycle.service';
import { JobsRepository } from './jobs.repository';

export interface JobPage {
  jobs: Job[];
  nextCursor: string | null;
}

/** Reading and cancelling a caller's jobs; another account's or environment's job is a 404. */
@Injectable()
export class JobsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycleService,
  ) {}

  async get(caller: AuthContext, jobId: string): Promise<{ job: Job; results: JobResult[] }> {
    const found = await this.jobs.findOwnedWithResults(caller, jobId);
    if (!found) throw DomainError.notFound('job');
    return found;
  }

  async enhancement(caller: AuthContext, id: string): Promise<{ job: Job; results: JobResult[] }> {
    const found = await this.get(caller, id).catch((error: unknown) => {
      throw error instanceof DomainError ? DomainError.notFound('enhancement') : error;
    });
    if (found.job.kind !== JobKind.ProductPhoto) throw DomainError.notFound('enhancement');
    return found;
  }

  async list(
    caller: AuthContext,
    query: { limit: number; cursor?: string; status?: JobStatus; api?: ToolId },
  ): Promise<JobPage> {
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const jobs = await this.jobs.list(caller, { limit: query.limit + 1, after, status: query.status, api: query.api });
    const page = jobs.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      jobs: page,
      nextCursor: jobs.length > query.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
    };
  }

  /** Cancelling a job that already ended changes nothing and returns it as it is. */
  async cancel(caller: AuthContext, jobId: string): Promise<{ job: Job; results: JobResult[] }> {
    const job = await this.jobs.findOwned(caller, jobId);
    if (!job) throw DomainError.notFound('job');
    // Run again from the start if PostgreSQL aborts it (deadlock, lock timeout): see JobLifecycleService.
    await withTransactionRetry(this.dataSource, (manager) => this.lifecycle.cancel(manager, job.id));
    return this.get(caller, jobId);
  }
}
