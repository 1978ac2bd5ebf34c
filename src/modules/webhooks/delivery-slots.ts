import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { REDIS } from '../../core/redis/redis.module';

/**
 * Takes a slot when the account has fewer than ARGV[3] unexpired ones. Each slot expires on its
 * own, so a worker that dies mid-delivery frees its slot without anyone releasing it.
 */
const TAKE_SLOT_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[4]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

type SlotRedis = Redis & {
  takeDeliverySlot(key: string, now: number, expiresAt: number, limit: number, member: string, ttl: number): Promise<number>;
};

/**
 * Per-account cap on deliveries in flight, shared by every worker through Redis: a slow or
 * dead receiver holds at most WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT worker slots, and other
 * accounts' deliveries keep flowing through the rest.
 */
@Injectable()
export class DeliverySlots {
  private readonly redis: SlotRedis;
  /** A slot outlives the longest possible attempt, then frees itself. */
  private readonly ttlMs: number;

  constructor(
    @Inject(REDIS) redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    if (!('takeDeliverySlot' in redis)) redis.defineCommand('takeDeliverySlot', { numberOfKeys: 1, lua: TAKE_SLOT_SCRIPT });
    this.redis = redis as SlotRedis;
    this.ttlMs = (config.WEBHOOK_TIMEOUT_SECONDS + 5) * 1000;
  }

  async take(accountId: string, deliveryId: string): Promise<boolean> {
    const now = Date.now();
    const taken = await this.redis.takeDeliverySlot(
      this.key(accountId),
      now,
      now + this.ttlMs,
      this.config.WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT,
      deliveryId,
      this.ttlMs,
    );
    return taken === 1;
  }

  async release(accountId: string, deliveryId: string): Promise<void> {
    await this.redis.zrem(this.key(accountId), deliveryId);
  }

  private key(accountId: string): string {
    return `${this.config.REDIS_KEY_PREFIX}:webhook-slots:${accountId}`;
  }
}
