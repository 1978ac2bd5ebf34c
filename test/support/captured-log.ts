import { Writable } from 'node:stream';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { httpLoggerOptions } from '../../src/core/logging/logging.module';

/**
 * The logger the service's modules log through (nestjs-pino's, built by pino-http from
 * `httpLoggerOptions`), writing into memory: what a log line would hold, serializers included.
 */
export function capturedLog(): { logger: Logger; lines: () => string[]; text: () => string } {
  const written: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line.length > 0),
      );
      done();
    },
  });
  const { logger } = pinoHttp(httpLoggerOptions({ LOG_LEVEL: 'info' }), destination);
  return { logger, lines: () => [...written], text: () => written.join('\n') };
}
