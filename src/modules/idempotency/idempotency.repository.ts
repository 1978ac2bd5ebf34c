import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { preparedStatement, runPrepared } from '../../core/database/prepared-statement';

/** A key as its first request recorded it. */
export interface RecordedClaim {
  endpoint: string;
  requestHash: string;
}

/** A key as a public create recorded it, with the job it created. */
export interface RecordedJobClaim extends RecordedClaim {
  jobId: string;
}

export interface NewClaim {
  apiKeyId: string;
  key: string;
  endpoint: string;
  requestHash: string;
  jobId: string;
}

export interface NewOperatorClaim {
  key: string;
  endpoint: string;
  requestHash: string;
  accountId: string;
}

const INSERT_CLAIM = preparedStatement(
  'idempotency_claim',
  `WITH claimed AS (
     INSERT INTO idempotency_keys (api_key_id, key, endpoint, request_hash, job_id)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (api_key_id, key) DO UPDATE
       SET endpoint = EXCLUDED.endpoint, request_hash = EXCLUDED.request_hash,
           job_id = EXCLUDED.job_id, created_at = now()
       WHERE idempotency_keys.created_at <= now() - make_interval(hours => $6)
     RETURNING job_id)
   SELECT job_id FROM claimed`,
);

const FIND_CLAIM = preparedStatement(
  'idempotency_claimed_before',
  `SELECT endpoint, request_hash, job_id FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`,
);

/**
 * Every statement on the idempotency records of public creates and of operators, in the
 * caller's transaction. A claim inserts the record, or takes over one older than `ttlHours`;
 * a conflicting insert waits on the unique index until the transaction holding it ends.
 */
@Injectable()
export class IdempotencyRepository {
  /** True when this call claimed the key; false when a live record holds it. */
  async claim(manager: EntityManager, claim: NewClaim, ttlHours: number): Promise<boolean> {
    const claimed = await runPrepared(manager, INSERT_CLAIM, [
      claim.apiKeyId,
      claim.key,
      claim.endpoint,
      claim.requestHash,
      claim.jobId,
      ttlHours,
    ]);
    return claimed.length > 0;
  }

  async findClaim(manager: EntityManager, apiKeyId: string, key: string): Promise<RecordedJobClaim | null> {
    const [row] = await runPrepared<{ endpoint: string; request_hash: string; job_id: string }>(manager, FIND_CLAIM, [
      apiKeyId,
      key,
    ]);
    return row ? { endpoint: row.endpoint, requestHash: row.request_hash, jobId: row.job_id } : null;
  }

  /** True when this call claimed the operator's key; false when a live record holds it. */
  async claimOperatorKey(manager: EntityManager, claim: NewOperatorClaim, ttlHours: number): Promise<boolean> {
    const claimed: unknown[] = await manager.query(
      `WITH claimed AS (
         INSERT INTO operator_idempotency_keys (key, endpoint, request_hash, account_id)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (key) DO UPDATE
           SET endpoint = EXCLUDED.endpoint, request_hash = EXCLUDED.request_hash,
               account_id = EXCLUDED.account_id, created_at = now()
           WHERE operator_idempotency_keys.created_at <= now() - make_interval(hours => $5)
         RETURNING key)
       SELECT key FROM claimed`,
      [claim.key, claim.endpoint, claim.requestHash, claim.accountId, ttlHours],
    );
    return claimed.length > 0;
  }

  async findOperatorClaim(manager: EntityManager, key: string): Promise<RecordedClaim | null> {
    const [row]: Array<{ endpoint: string; request_hash: string }> = await manager.query(
      `SELECT endpoint, request_hash FROM operator_idempotency_keys WHERE key = $1`,
      [key],
    );
    return row ? { endpoint: row.endpoint, requestHash: row.request_hash } : null;
  }

  /** Deletes the public creates' records older than `ttlHours`; how many. */
  async deleteExpired(manager: EntityManager, ttlHours: number): Promise<number> {
    const [, deleted]: [unknown, number] = await manager.query(
      `DELETE FROM idempotency_keys WHERE created_at <= now() - make_interval(hours => $1)`,
      [ttlHours],
    );
    return deleted;
  }

  /** Deletes the operators' records older than `ttlHours`; how many. */
  async deleteExpiredOperatorKeys(manager: EntityManager, ttlHours: number): Promise<number> {
    const [, deleted]: [unknown, number] = await manager.query(
      `DELETE FROM operator_idempotency_keys WHERE created_at <= now() - make_interval(hours => $1)`,
      [ttlHours],
    );
    return deleted;
  }
}
