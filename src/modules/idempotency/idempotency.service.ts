import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { IdempotencyRepository, type RecordedClaim } from './idempotency.repository';

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

const CONFLICT_MESSAGE =
  'This Idempotency-Key was already used with a different request. Use a new key for a new request.';

/** A key reused for another endpoint or body is a conflict (409), not a replay. */
function refuseDifferentRequest(recorded: RecordedClaim, request: RecordedClaim): void {
  if (recorded.endpoint !== request.endpoint || recorded.requestHash !== request.requestHash) {
    throw new DomainError(ErrorCode.IdempotencyConflict, CONFLICT_MESSAGE);
  }
}

/**
 * Idempotency records live in the create transaction. The first statement of a create claims
 * the key by inserting its record: a concurrent request with the same key waits on the unique
 * index until the first commits (then finds its job) or rolls back (then claims the key
 * itself), so no separate lock is needed and a refused request leaves no record.
 */
@Injectable()
export class IdempotencyService {
  constructor(private readonly claims: IdempotencyRepository) {}

  /**
   * Claims the key for `jobId` (the job's foreign key is checked at commit, once the job
   * exists). Null when claimed; otherwise the job of the earlier request, or 409 when that
   * request differed. An expired record is taken over.
   */
  async claim(manager: EntityManager, request: IdempotentRequest, jobId: string): Promise<string | null> {
    if (await this.claims.claim(manager, { ...request, jobId }, IDEMPOTENCY_TTL_HOURS)) return null;
    // The conflicting record is committed and locked by the statement above: a fresh read sees it.
    const existing = await this.claims.findClaim(manager, request.apiKeyId, request.key);
    if (!existing) throw new Error('idempotency record vanished while locked');
    refuseDifferentRequest(existing, request);
    return existing.jobId;
  }

  /**
   * Claims an operator's key the same way `claim` does (a concurrent request with the key waits
   * on the unique index for the first to commit or roll back). True when claimed, so the change
   * is to be made; false when an earlier request with the same endpoint and body made it; 409
   * when that request differed. An expired record is taken over.
   */
  async claimOperatorRequest(manager: EntityManager, request: OperatorIdempotentRequest): Promise<boolean> {
    if (await this.claims.claimOperatorKey(manager, request, IDEMPOTENCY_TTL_HOURS)) return true;
    const existing = await this.claims.findOperatorClaim(manager, request.key);
    if (!existing) throw new Error('operator idempotency record vanished while locked');
    refuseDifferentRequest(existing, request);
    return false;
  }

  /** Deletes expired records, the public creates' and the operators' alike. */
  async purgeExpired(manager: EntityManager): Promise<number> {
    const deleted = await this.claims.deleteExpired(manager, IDEMPOTENCY_TTL_HOURS);
    const deletedOperator = await this.claims.deleteExpiredOperatorKeys(manager, IDEMPOTENCY_TTL_HOURS);
    return deleted + deletedOperator;
  }
}
