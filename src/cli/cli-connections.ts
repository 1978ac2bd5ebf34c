import type { Connections } from '../core/config/config.module';
import type { AppConfig } from '../core/config/config.schema';
import { embeddedPostgresUrl } from '../core/bootstrap/embedded-postgres/embedded-postgres';

/**
 * Command-line tools use DATABASE_URL and REDIS_URL; without them they reach the embedded
 * services of a running `npm start`.
 */
export function cliConnections(config: AppConfig): Connections {
  return {
    databaseUrl: config.DATABASE_URL ?? embeddedPostgresUrl(config.EMBEDDED_POSTGRES_PORT),
    redisUrl: config.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}
