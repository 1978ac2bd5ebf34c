import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { Express } from 'express';
import { Logger } from 'nestjs-pino';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import {
  closeOnUnreadRawBody,
  parseJsonBody,
  requireJsonContentType,
  translateBodyParserErrors,
} from '../http/body-parsing';
import { assignRequestId, includeRequestIdInReplies } from '../http/request-id';
import { HttpMetrics } from '../metrics/http.metrics';
import { fixOpenApiDocument } from '../openapi/document-fixes';
import { ErrorResponseDto } from '../openapi/error-response.dto';
import { serveConsole } from './console-static';

export const OPENAPI_JSON_PATH = 'api/v1/openapi.json';
export const DOCS_PATH = 'docs';

/**
 * Everything about the HTTP application that is not a module: middleware order, the OpenAPI
 * document. Used by the entry point and by tests, so both run the same stack.
 */
export function configureHttpApp(app: INestApplication): void {
  app.useLogger(app.get(Logger));
  const express = app.getHttpAdapter().getInstance() as Express;
  express.disable('x-powered-by');
  // Behind a load balancer, the client's address for per-IP limits comes from X-Forwarded-For,
  // trusted only as far as TRUST_PROXY says (Express's own setting and semantics; the configuration
  // refuses trusting every hop, which would let any client choose its own address).
  express.set('trust proxy', app.get<symbol, AppConfig>(APP_CONFIG).TRUST_PROXY);
  // Order matters: timing covers the whole request, the id exists before anything can fail, and
  // body errors reach the envelope.
  app.use(
    app.get(HttpMetrics).timeRequests,
    assignRequestId,
    closeOnUnreadRawBody,
    requireJsonContentType,
    parseJsonBody,
    translateBodyParserErrors,
  );
  includeRequestIdInReplies(app.getHttpAdapter());
  serveConsole(app, app.get<symbol, AppConfig>(APP_CONFIG));

  const document = fixOpenApiDocument(
    SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('Image Job Service API')
        .setDescription(
          'Asynchronous image processing for product visuals. Every create call returns a job at once; ' +
            'poll `GET /api/v1/jobs/{jobId}` or receive signed webhooks. Errors use one envelope: ' +
            '`{ error: { code, message, details? }, request_id }`.',
        )
        .setVersion('1.0.0')
        .addBearerAuth(
          { type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'sk_live_… or sk_sandbox_… API key' },
          'api_key',
        )
        .addBearerAuth(
          { type: 'http', scheme: 'bearer', bearerFormat: 'opaque token', description: 'Operator ADMIN_TOKEN' },
          'admin',
        )
        .build(),
      { extraModels: [ErrorResponseDto] },
    ),
  );
  SwaggerModule.setup(DOCS_PATH, app, document, { jsonDocumentUrl: OPENAPI_JSON_PATH });
}
