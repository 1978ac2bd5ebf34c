import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AppConfig } from '../config/config.schema';

export const CONSOLE_PATH = '/console';

/**
 * The browser console's compiled files (`npm run build` writes them beside the service's).
 * Resolved from this file's folder so that the built service (dist/core/bootstrap) and the
 * tests run from source (src/core/bootstrap) both find the one build in dist/console.
 */
export const CONSOLE_DIR = join(__dirname, '..', '..', '..', 'dist', 'console');

type ConsoleImageConfig = Pick<AppConfig, 'PUBLIC_BASE_URL' | 'RESULT_URLS' | 'S3_ENDPOINT'>;

/**
 * Where the console may load images from: itself, the images it makes (blob: and data:) and the
 * service's stored files (the API's own signed URLs, or the bucket's presigned ones), originals
 * included (`source_preview_url`). Never a customer's host: an image from one would fail for an
 * http or expired source, and would tell that host who opens the console.
 */
export function consoleImageSources(config: ConsoleImageConfig): string[] {
  const sources = new Set(["'self'", 'blob:', 'data:', new URL(config.PUBLIC_BASE_URL).origin]);
  if (config.RESULT_URLS === 'presigned' && config.S3_ENDPOINT) sources.add(new URL(config.S3_ENDPOINT).origin);
  return [...sources];
}

/** No inline script or style, nothing from another origin but the stored files' images; no framing, no plugins. */
export function consoleContentSecurityPolicy(config: ConsoleImageConfig): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${consoleImageSources(config).join(' ')}`,
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Serves the console at /console with its policy on every response (the API role only). */
export function serveConsole(app: INestApplication, config: ConsoleImageConfig): void {
  const server = app.getHttpAdapter().getInstance() as Express;
  const policy = consoleContentSecurityPolicy(config);
  server.use(CONSOLE_PATH, (_request: Request, response: Response, next: NextFunction) => {
    response.setHeader('Content-Security-Policy', policy);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    // The console is one page whose routes live in the fragment, so a new build is picked up at once.
    response.setHeader('Cache-Control', 'no-cache');
    next();
  });
  server.use(CONSOLE_PATH, express.static(CONSOLE_DIR, { index: 'index.html', redirect: true }));
}
