import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { CONNECTIONS, type Connections } from '../config/config.module';

/** The shared command connection (rate limits, caches, publishing). */
export const REDIS = Symbol('REDIS');
/** A connection in subscriber mode; Redis allows no other commands on it. */
export const REDIS_SUBSCRIBER = Symbol('REDIS_SUBSCRIBER');

function connect(url: string, name: string, subscriber = false): Redis {
  return new Redis(url, {
    connectionName: name,
    // The subscriber too. Without the check, ioredis 5 could take a connection that closed during
    // its handshake for ready and never reconnect (redis/ioredis#2099): the process would stay
    // deaf to key revocations and live events for good. ioredis 6 fixes that on both paths (a
    // handshake that outlived its connection no longer marks anything ready), and the check is its
    // default; it stays spelled out because the subscriber relies on it. The check's INFO is
    // refused on a connection already in subscriber mode, so nothing may subscribe during the
    // handshake: ioredis subscribes again only once ready, and the first subscriptions wait for
    // the subscriber's first readiness (below).
    enableReadyCheck: true,
    // Commands fail after a bounded wait when Redis is down, so requests answer 503, not hang.
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    // Commands issued in the same tick (rate limits, delivery slots) go out in one write.
    enableAutoPipelining: !subscriber,
  });
}

@Global()
@Module({
  providers: [
    { provide: REDIS, inject: [CONNECTIONS], useFactory: (c: Connections) => connect(c.redisUrl, 'image-jobs') },
    {
      provide: REDIS_SUBSCRIBER,
      inject: [CONNECTIONS],
      useFactory: async (c: Connections) => {
        const subscriber = connect(c.redisUrl, 'image-jobs-subscriber', true);
        try {
          // Answered once the connection is ready; refused, like any command, while Redis cannot be reached.
          await subscriber.ping();
        } catch (error) {
          subscriber.disconnect();
          throw error;
        }
        return subscriber;
      },
    },
  ],
  exports: [REDIS, REDIS_SUBSCRIBER],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(REDIS_SUBSCRIBER) private readonly subscriber: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.redis.quit(), this.subscriber.quit()]);
  }
}
