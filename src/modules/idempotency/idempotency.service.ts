import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { IdempotencyKey } from './idempotency-key.entity';

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

/**
 * Idempotency records live in the create transaction: taken under a per-key advisory lock,
 * so a concurrent duplicate waits for the first request and then finds its job.
 */
@Injectable()
export class IdempotencyService {
  /** Serialises requests that carry the same key; held until the transaction ends. */
  async lock(manager: EntityManager, request: IdempotentRequest): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${request.apiKeyId}:${request.key}`]);
  }

  /** The job an earlier request with this key created, or null; 409 when the request differs. */
  async findReplay(manager: EntityManager, request: IdempotentRequest): Promise<string | null> {
    const rows: Array<{ endpoint: string; request_hash: string; job_id: string }> = await manager.query(
      `SELECT endpoint, request_hash, job_id FROM idempotency_keys
        WHERE api_key_id = $1 AND key = $2 AND created_at > now() - make_interval(hours => $3)`,
      [request.apiKeyId, request.key, IDEMPOTENCY_TTL_HOURS],
    );
    const existing = rows[0];
    if (!existing) return null;
    if (existing.endpoint !== request.endpoint || existing.request_hash !== request.requestHash) {
      throw new DomainError(
        ErrorCode.IdempotencyConflict,
        'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
      );
    }
    return existing.job_id;
  }

  /** Records the key; an expired record with the same key is replaced. */
  async remember(manager: EntityManager, request: IdempotentRequest, jobId: string): Promise<void> {
    await manager.query(
      `INSERT INTO idempotency_keys (api_key_id, key, endpoint, request_hash, job_id)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (api_key_id, key) DO UPDATE
         SET endpoint = EXCLUDED.endpoint, request_hash = EXCLUDED.request_hash,
             job_id = EXCLUDED.job_id, created_at = now()`,
      [request.apiKeyId, request.key, request.endpoint, request.requestHash, jobId],
    );
  }

  async purgeExpired(manager: EntityManager): Promise<number> {
    const [, deleted]: [unknown, number] = await manager.query(
      `DELETE FROM idempotency_keys WHERE created_at <= now() - make_interval(hours => $1)`,
      [IDEMPOTENCY_TTL_HOURS],
    );
    return deleted;
  }
}
