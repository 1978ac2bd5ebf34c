import type { IncomingMessage } from 'node:http';
import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { serializeError } from './error-serializer';
import { redactUrl } from './redact-url';

/** Levels at which a request line (logged at info) is written. */
const REQUEST_LINE_LEVELS: ReadonlySet<string> = new Set(['info', 'debug', 'trace']);

/**
 * What a request line says about the request: never its headers, never a credential in its URL.
 * Every `req` a log line carries goes through this serializer, so no header ever reaches a line
 * and no redaction pass over each request's bindings is needed.
 */
export function serializeRequest(req: { id: unknown; method: string; url: string }) {
  return { request_id: req.id, method: req.method, url: redactUrl(req.url) };
}

/** The pino-http options of the API, apart so a test can log through exactly them. */
export function httpLoggerOptions(config: Pick<AppConfig, 'LOG_LEVEL'>): Options {
  return {
    level: config.LOG_LEVEL,
    // Request lines are logged at info: above that level, skip the per-response work too.
    autoLogging: REQUEST_LINE_LEVELS.has(config.LOG_LEVEL),
    // The id was assigned by the first middleware; reuse it so logs and responses agree.
    genReqId: (req: IncomingMessage) => req.id ?? 'unknown',
    serializers: {
      req: serializeRequest,
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      err: serializeError,
    },
  };
}

/** Structured JSON logs; HTTP lines carry the request id, and no line carries a credential or a query's parameters. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ pinoHttp: httpLoggerOptions(config) }),
    }),
  ],
})
export class LoggingModule {}
