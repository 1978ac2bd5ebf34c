import type { IncomingMessage } from 'node:http';
import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/** Levels at which a request line (logged at info) is written. */
const REQUEST_LINE_LEVELS: ReadonlySet<string> = new Set(['info', 'debug', 'trace']);

/** Structured JSON logs; HTTP lines carry the request id and never credentials. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.LOG_LEVEL,
          // Request lines are logged at info: above that level, skip the per-response work too.
          autoLogging: REQUEST_LINE_LEVELS.has(config.LOG_LEVEL),
          // The id was assigned by the first middleware; reuse it so logs and responses agree.
          genReqId: (req: IncomingMessage) => req.id ?? 'unknown',
          redact: {
            paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'],
            censor: '[redacted]',
          },
          serializers: {
            req: (req: { id: unknown; method: string; url: string }) => ({
              request_id: req.id,
              method: req.method,
              url: req.url,
            }),
            res: (res: { statusCode: number }) => ({ status: res.statusCode }),
          },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
