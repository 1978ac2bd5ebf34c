import type { EntityManager } from 'typeorm';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import type { IdempotencyRepository, RecordedClaim } from './idempotency.repository';
import {
  IDEMPOTENCY_TTL_HOURS,
  IdempotencyService,
  type IdempotentRequest,
  type OperatorIdempotentRequest,
} from './idempotency.service';

/** The records as the repository would hold them, live ones only. */
class FakeClaims implements IdempotencyRepository {
  readonly records = new Map<string, RecordedClaim & { jobId: string }>();
  readonly operatorRecords = new Map<string, RecordedClaim>();
  ttlHours: number | undefined;

  async claim(
    _: EntityManager,
    claim: RecordedClaim & { apiKeyId: string; key: string; jobId: string },
    ttlHours: number,
  ) {
    this.ttlHours = ttlHours;
    const id = `${claim.apiKeyId}/${claim.key}`;
    if (this.records.has(id)) return false;
    this.records.set(id, { endpoint: claim.endpoint, requestHash: claim.requestHash, jobId: claim.jobId });
    return true;
  }
  async findClaim(_: EntityManager, apiKeyId: string, key: string) {
    return this.records.get(`${apiKeyId}/${key}`) ?? null;
  }
  async claimOperatorKey(_: EntityManager, claim: OperatorIdempotentRequest) {
    if (this.operatorRecords.has(claim.key)) return false;
    this.operatorRecords.set(claim.key, { endpoint: claim.endpoint, requestHash: claim.requestHash });
    return true;
  }
  async findOperatorClaim(_: EntityManager, key: string) {
    return this.operatorRecords.get(key) ?? null;
  }
  async deleteExpired() {
    return 2;
  }
  async deleteExpiredOperatorKeys() {
    return 3;
  }
}

const manager = {} as EntityManager;
const request: IdempotentRequest = {
  apiKeyId: 'key-1',
  key: 'idem-1',
  endpoint: 'POST /v1/jobs',
  requestHash: 'hash-a',
};
const operatorRequest: OperatorIdempotentRequest = {
  key: 'op-1',
  endpoint: 'POST /credits',
  requestHash: 'hash-a',
  accountId: 'acc-1',
};

async function conflictOf(work: Promise<unknown>): Promise<ErrorCode | undefined> {
  const error: unknown = await work.catch((caught: unknown) => caught);
  return error instanceof DomainError ? error.code : undefined;
}

describe(IdempotencyService.name, () => {
  let claims: FakeClaims;
  let service: IdempotencyService;
  beforeEach(() => {
    claims = new FakeClaims();
    service = new IdempotencyService(claims);
  });

  it('claims a new key for the job being created, with records living for the contract TTL', async () => {
    expect(await service.claim(manager, request, 'job-1')).toBeNull();
    expect(claims.ttlHours).toBe(IDEMPOTENCY_TTL_HOURS);
  });

  it('answers a replay (same endpoint and body) with the job of the first request', async () => {
    await service.claim(manager, request, 'job-1');
    expect(await service.claim(manager, request, 'job-2')).toBe('job-1');
  });

  it('refuses the key reused with another body or on another endpoint as a conflict', async () => {
    await service.claim(manager, request, 'job-1');
    expect(await conflictOf(service.claim(manager, { ...request, requestHash: 'hash-b' }, 'job-2'))).toBe(
      ErrorCode.IdempotencyConflict,
    );
    expect(await conflictOf(service.claim(manager, { ...request, endpoint: 'POST /v1/other' }, 'job-2'))).toBe(
      ErrorCode.IdempotencyConflict,
    );
  });

  it('keeps keys of different API keys apart', async () => {
    await service.claim(manager, request, 'job-1');
    expect(await service.claim(manager, { ...request, apiKeyId: 'key-2' }, 'job-2')).toBeNull();
  });

  it('fails loudly when the conflicting record cannot be read back', async () => {
    claims.claim = async () => false;
    await expect(service.claim(manager, request, 'job-1')).rejects.toThrow('vanished');
  });

  it('makes an operator change once: a repeat changes nothing, another body is a conflict', async () => {
    expect(await service.claimOperatorRequest(manager, operatorRequest)).toBe(true);
    expect(await service.claimOperatorRequest(manager, operatorRequest)).toBe(false);
    expect(await conflictOf(service.claimOperatorRequest(manager, { ...operatorRequest, requestHash: 'hash-b' }))).toBe(
      ErrorCode.IdempotencyConflict,
    );
  });

  it('purges the expired records of both kinds', async () => {
    expect(await service.purgeExpired(manager)).toBe(5);
  });
});
