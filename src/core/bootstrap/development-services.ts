import { access, constants } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { delimiter, join } from 'node:path';
import type { Logger } from 'pino';

export interface StartedService {
  url: string;
  stop(): Promise<void>;
}

function answers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host, port });
    const finish = (result: boolean) => {
      socket.destroy();
      done(result);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

async function findOnPath(binary: string): Promise<string | null> {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(folder, binary);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return null;
}

/**
 * The machine's Redis on 127.0.0.1:6379 when one answers; otherwise a private one started
 * from the system `redis-server` (nothing is downloaded at run time).
 */
export async function ensureLocalRedis(logger: Logger): Promise<StartedService> {
  if (await answers('127.0.0.1', 6379)) {
    return { url: 'redis://127.0.0.1:6379', stop: () => Promise.resolve() };
  }
  const systemBinary = await findOnPath('redis-server');
  if (!systemBinary) {
    throw new Error(
      'No Redis answers on 127.0.0.1:6379 and no redis-server is installed: set REDIS_URL or install Redis.',
    );
  }
  // A development dependency: a production install (`npm ci --omit=dev`, the image) has none.
  const { RedisMemoryServer } = await import('redis-memory-server').catch(() => {
    throw new Error(
      'No Redis answers on 127.0.0.1:6379 and redis-memory-server, a development dependency, is not installed: ' +
        'set REDIS_URL.',
    );
  });
  const server = new RedisMemoryServer({ binary: { systemBinary } });
  const host = await server.getHost();
  const port = await server.getPort();
  logger.info({ host, port }, 'started a private Redis for this run');
  return { url: `redis://${host}:${port}`, stop: async () => void (await server.stop()) };
}
