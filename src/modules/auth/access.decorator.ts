import { SetMetadata } from '@nestjs/common';

export enum AccessLevel {
  /** No credentials (catalog, health, presets). */
  Public = 'public',
  /** A live or sandbox API key: the default for every route. */
  ApiKey = 'api_key',
  /** The operator's ADMIN_TOKEN. */
  Admin = 'admin',
}

export const ACCESS_METADATA = 'access_level';

export const Access = (level: AccessLevel) => SetMetadata(ACCESS_METADATA, level);
