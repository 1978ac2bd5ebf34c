import { SetMetadata } from '@nestjs/common';

export enum AccessLevel {
  /** No credentials (catalog, health, presets). */
  Public = 'public',
  /** A live or sandbox API key: the default for every route. */
  ApiKey = 'api_key',
  /** The operator's ADMIN_TOKEN. */
  Admin = 'admin',
  /** A scraper's METRICS_TOKEN, or the ADMIN_TOKEN (`/metrics`). */
  Metrics = 'metrics',
}

/**
 * Route metadata only: every controller, core's included, declares who may call it here, and the
 * auth module's guard reads it, so core depends on no module to do so.
 */
export const ACCESS_METADATA = 'access_level';

export const Access = (level: AccessLevel) => SetMetadata(ACCESS_METADATA, level);
