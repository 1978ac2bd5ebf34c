import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { REDIS, REDIS_SUBSCRIBER } from '../../core/redis/redis.module';
import { FailedAuthLimitService } from '../rate-limit/failed-auth-limit.service';
import type { ApiKey, KeyEnvironment } from './api-key.entity';
import { ApiKeysRepository } from './api-keys.repository';
import { generateKeySecret, hashSecret, isWellFormedKey } from './api-key-secret';
import { KeyLookupCache, type ResolvedKey } from './key-lookup-cache';

export interface IssuedKey {
  apiKey: ApiKey;
  /** The only time the secret exists outside the client's hands. */
  secret: string;
}

/** What a revocation or an account change makes stale: one key, or every key of an account. */
export interface KeyInvalidation {
  keyId?: string;
  accountId?: string;
}

/** Issues, revokes and resolves API keys; every API instance hears revocations at once. */
@Injectable()
export class ApiKeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeysService.name);
  private readonly cache: KeyLookupCache;
  private readonly channel: string;
  private readonly invalidationListeners: Array<(match: KeyInvalidation) => void> = [];

  constructor(
    private readonly keys: ApiKeysRepository,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(REDIS_SUBSCRIBER) private readonly subscriber: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly failedAuth: FailedAuthLimitService,
  ) {
    this.cache = new KeyLookupCache(config.AUTH_CACHE_TTL_SECONDS * 1000);
    this.channel = `${config.REDIS_KEY_PREFIX}:auth:invalidate`;
  }

  async onModuleInit(): Promise<void> {
    this.subscriber.on('message', this.onInvalidation);
    await this.subscriber.subscribe(this.channel);
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber.off('message', this.onInvalidation);
    await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }

  /**
   * `listener` hears every revocation and account change, made on this instance or another: for
   * what holds on to a key beyond one request (an open event stream).
   */
  whenInvalidated(listener: (match: KeyInvalidation) => void): void {
    this.invalidationListeners.push(listener);
  }

  async issue(accountId: string, environment: KeyEnvironment, name: string | null): Promise<IssuedKey> {
    const { secret, prefix, hash } = generateKeySecret(environment);
    const apiKey = await this.keys.insert({ accountId, environment, name, prefix, secretHash: hash });
    return { apiKey, secret };
  }

  /** Returns false when the key does not exist or was already revoked. */
  async revoke(keyId: string): Promise<boolean> {
    const revoked = await this.keys.revoke(keyId);
    await this.invalidate({ keyId });
    return revoked;
  }

  /** Drops cached lookups of an account's keys everywhere, after its flags changed. */
  async forgetAccount(accountId: string): Promise<void> {
    await this.invalidate({ accountId });
  }

  /**
   * The key a presented secret stands for. A key that resolves valid always passes, whatever its
   * client IP has failed before: behind a proxy that hides client addresses every client shares
   * one IP, and one client's failures must not lock the others out. A secret that proves
   * malformed, unknown or revoked counts as a failure of the IP and is refused with 401, or with
   * 429 once the IP has used up its failures in the window. Guessing stays cheap for the
   * database: a malformed secret costs no lookup, a well-formed one at most one by the unique
   * index on the hash, and the same one again none while the cache remembers it as unknown.
   */
  async authenticate(secret: string, clientIp: string): Promise<ResolvedKey> {
    const resolved = await this.resolve(secret);
    if (resolved) return resolved;
    await this.failedAuth.recordFailure(clientIp);
    throw new DomainError(ErrorCode.Unauthorized, 'The API key is invalid or has been revoked.');
  }

  async resolve(secret: string): Promise<ResolvedKey | null> {
    if (!isWellFormedKey(secret)) return null;
    const hash = hashSecret(secret);
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached;
    const generation = this.cache.currentGeneration();
    const row = await this.keys.findActiveByHash(hash);
    const resolved: ResolvedKey | null =
      row && row.account
        ? {
            keyId: row.id,
            accountId: row.accountId,
            environment: row.environment,
            apiAccess: row.account.apiAccess,
            restrictedUntil: row.account.restrictedUntil,
          }
        : null;
    this.cache.set(hash, resolved, generation);
    return resolved;
  }

  async findById(keyId: string): Promise<ApiKey> {
    const key = await this.keys.findById(keyId);
    if (!key) throw DomainError.notFound('API key');
    return key;
  }

  private async invalidate(match: KeyInvalidation): Promise<void> {
    this.forget(match);
    await this.redis.publish(this.channel, JSON.stringify(match));
  }

  /** Idempotent: an instance hears its own invalidations again from Redis. */
  private forget(match: KeyInvalidation): void {
    this.cache.invalidate(match);
    for (const listener of this.invalidationListeners) listener(match);
  }

  private readonly onInvalidation = (channel: string, message: string): void => {
    if (channel !== this.channel) return;
    try {
      this.forget(JSON.parse(message) as KeyInvalidation);
    } catch (error) {
      this.logger.warn({ err: error }, 'ignored malformed key invalidation message');
    }
  };
}
