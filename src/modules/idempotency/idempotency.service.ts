import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { preparedStatement, runPrepared } from '../../core/database/prepared-statement';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';

/** How long a key keeps its job (contract section 9). */
export const IDEMPOTENCY_TTL_HOURS = 24;

export interface IdempotentRequest {
  apiKeyId: string;
  key: string;
  endpoint: string;
  requestHash: string;
}

/** JSON with object keys sorted at every depth, so key order never makes two bodies differ. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function hashRequestBody(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** An operator request made with an Idempotency-Key; one admin token, so the key alone is the scope. */
export interface OperatorIdempotentRequest {
  key: string;
  endpoint: string;
  requestHash: string;
  accountId: string;
}

const CLAIM = preparedStatement(
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

const CLAIMED_BEFORE = preparedStatement(
  'idempotency_claimed_before',
  `SELECT endpoint, request_hash, job_id FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`,
);

const CONFLICT_MESSAGE =
  'This Idempotency-Key was already used with a different request. Use a new key for a new request.';

/**
 * Idempotency records live in the create transaction. The first statement of a create claims
 * the key by inserting its record: a concurrent request with the same key waits on the unique
 * index until the first commits (then finds its job) or rolls back (then claims the key
 * itself), so no separate lock is needed and a refused request leaves no record.
 */
@Injectable()
export class IdempotencyService {
  /**
   * Claims the key for `jobId` (the job's foreign key is checked at commit, once the job
   * exists). Null when claimed; otherwise the job of the earlier request, or 409 when that
   * request differed. An expired record is taken over.
   */
  async claim(manager: EntityManager, request: IdempotentRequest, jobId: string): Promise<string | null> {
    const claimed = await runPrepared(manager, CLAIM, [
      request.apiKeyId,
      request.key,
      request.endpoint,
      request.requestHash,
      jobId,
      IDEMPOTENCY_TTL_HOURS,
    ]);
    if (claimed.length > 0) return null;
    // The conflicting record is committed and locked by the statement above: a fresh read sees it.
    const [existing] = await runPrepared<{ endpoint: string; request_hash: string; job_id: string }>(
      manager,
      CLAIMED_BEFORE,
      [request.apiKeyId, request.key],
    );
    if (!existing) throw new Error('idempotency record vanished while locked');
    if (existing.endpoint !== request.endpoint || existing.request_hash !== request.requestHash) {
      throw new DomainError(ErrorCode.IdempotencyConflict, CONFLICT_MESSAGE);
    }
    return existing.job_id;
  }

  /**
   * Claims an operator's key the same way `claim` does (a concurrent request with the key waits
   * on the unique index for the first to commit or roll back). True when claimed, so the change
   * is to be made; false when an earlier request with the same endpoint and body made it; 409
   * when that request differed. An expired record is taken over.
   */
  async claimOperatorRequest(manager: EntityManager, request: OperatorIdempotentRequest): Promise<boolean> {
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
      [request.key, request.endpoint, request.requestHash, request.accountId, IDEMPOTENCY_TTL_HOURS],
    );
    if (claimed.length > 0) return true;
    const [existing]: Array<{ endpoint: string; request_hash: string }> = await manager.query(
      `SELECT endpoint, request_hash FROM operator_idempotency_keys WHERE key = $1`,
      [request.key],
    );
    if (!existing) throw new Error('operator idempotency record vanished while locked');
    if (existing.endpoint !== request.endpoint || existing.request_hash !== request.requestHash) {
      throw new DomainError(ErrorCode.IdempotencyConflict, CONFLICT_MESSAGE);
    }
    return false;
  }

  /** Deletes expired records, the public creates' and the operators' alike. */
  async purgeExpired(manager: EntityManager): Promise<number> {
    const [, deleted]: [unknown, number] = await manager.query(
      `DELETE FROM idempotency_keys WHERE created_at <= now() - make_interval(hours => $1)`,
      [IDEMPOTENCY_TTL_HOURS],
    );
    const [, deletedOperator]: [unknown, number] = await manager.query(
      `DELETE FROM operator_idempotency_keys WHERE created_at <= now() - make_interval(hours => $1)`,
      [IDEMPOTENCY_TTL_HOURS],
    );
    return deleted + deletedOperator;
  }
}
