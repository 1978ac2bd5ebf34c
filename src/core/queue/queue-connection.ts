import type { ConnectionOptions } from 'bullmq';
import type { Connections } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/** Where BullMQ keeps its keys, shared by producers (through BullModule) and workers. */
export const QUEUE_CONNECTION = Symbol('QUEUE_CONNECTION');

export interface QueueConnection {
  connection: ConnectionOptions;
  prefix: string;
}

export function queueConnection(config: AppConfig, connections: Connections): QueueConnection {
  const url = new URL(connections.redisUrl);
  return {
    prefix: `${config.REDIS_KEY_PREFIX}:bull`,
    connection: {
      host: url.hostname,
      port: Number(url.port || 6379),
      username: decodeURIComponent(url.username) || undefined,
      password: decodeURIComponent(url.password) || undefined,
      db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
      tls: url.protocol === 'rediss:' ? {} : undefined,
    },
  };
}
