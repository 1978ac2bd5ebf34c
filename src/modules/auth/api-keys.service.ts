import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { REDIS, REDIS_SUBSCRIBER } from '../../core/redis/redis.module';
import { FailedAuthLimitService, FailedCredential } from '../rate-limit/failed-auth-limit.service';
import type { ApiKey, KeyEnvironment } from './api-key.entity';
import { apiAccessRefusal } from './api-access';
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

/**
 * Issues, revokes and resolves API keys; every API instance hears revocations at once, through
 * Redis pub/sub. Pub/sub keeps no message for a subscriber that is away: while this process's
 * subscription is down its lookup cache is suspended, and when the subscription is back the
 * invalidations it may have missed are made good (the cache starts empty, and whoever holds on
 * to a key, such as an open event stream, checks it again).
 */
@Injectable()
export class ApiKeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeysService.name);
  private readonly cache: KeyLookupCache;
  private readonly channel: string;
  private readonly invalidationListeners: Array<(match: KeyInvalidation) => void> = [];
  private readonly missedInvalidationListeners: Array<() => void> = [];
  private subscribedOnce = false;

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
    this.subscriber.on('close', this.onSubscriptionLost);
    this.subscriber.on('ready', this.onResubscribed);
    await this.subscriber.subscribe(this.channel);
    // A connection lost while this first subscription waited suspended the cache, and its
    // `ready` came too early to resume it.
    this.cache.resume();
    this.subscribedOnce = true;
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber.off('message', this.onInvalidation);
    this.subscriber.off('close', this.onSubscriptionLost);
    this.subscriber.off('ready', this.onResubscribed);
    await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }

  /**
   * `listener` hears every revocation and account change, made on this instance or another: for
   * what holds on to a key beyond one request (an open event stream).
   */
  whenInvalidated(listener: (match: KeyInvalidation) => void): void {
    this.invalidationListeners.push(listener);
  }

  /**
   * `listener` hears that the subscription to invalidations came back after it was lost: any
   * key held since then may have been revoked unheard, so it is to be checked again (with
   * `acceptedKeyIds`).
   */
  whenInvalidationsMissed(listener: () => void): void {
    this.missedInvalidationListeners.push(listener);
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
    await this.failedAuth.recordFailure(FailedCredential.ApiKey, clientIp);
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

  /**
   * Of `keyIds`, those whose keys are unrevoked and whose accounts may use the API now, read
   * from the database (never from the cache).
   */
  async acceptedKeyIds(keyIds: readonly string[]): Promise<Set<string>> {
    const now = Date.now();
    const rows = await this.keys.findActiveByIds(keyIds);
    return new Set(rows.filter((row) => row.account && !apiAccessRefusal(row.account, now)).map((row) => row.id));
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

  /** Invalidations published from now on cannot reach this process, so its cache stops answering. */
  private readonly onSubscriptionLost = (): void => {
    this.cache.suspend();
  };

  /**
   * The subscriber connection is back. ioredis emits `ready` before it subscribes again, so the
   * channel is subscribed once more (a no-op for Redis) and only its reply resumes the cache:
   * from then on no invalidation is missed, and what was missed before is made good.
   */
  private readonly onResubscribed = (): void => {
    if (!this.subscribedOnce) return;
    this.subscriber.subscribe(this.channel).then(
      () => {
        this.cache.resume();
        for (const listener of this.missedInvalidationListeners) listener();
      },
      (error: unknown) => this.logger.warn({ err: error }, 'resubscribing to key invalidations failed'),
    );
  };

  private readonly onInvalidation = (channel: string, message: string): void => {
    if (channel !== this.channel) return;
    try {
      this.forget(JSON.parse(message) as KeyInvalidation);
    } catch (error) {
      this.logger.warn({ err: error }, 'ignored malformed key invalidation message');
    }
  };
}
