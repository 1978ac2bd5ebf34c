import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { ACCESS_METADATA, AccessLevel } from '../../core/http/access.decorator';
import { apiAccessRefusal } from './api-access';
import { ApiKeysService } from './api-keys.service';

export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}

/** Constant-time comparison of a presented token with the configured one. */
export function matchesAdminToken(presented: string, adminToken: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(adminToken));
}

/**
 * One guard for every route: API-key routes (the default) get a typed AuthContext on the
 * request; admin routes need ADMIN_TOKEN and do not exist while it is unset.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  /** Route metadata is fixed once the app is built: each handler's level is read once. */
  private readonly levels = new WeakMap<object, AccessLevel>();

  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const level = this.levelOf(context);
    const req = context.switchToHttp().getRequest<Request>();
    switch (level) {
      case AccessLevel.Public:
        return true;
      case AccessLevel.Admin:
        return this.authenticateAdmin(req);
      case AccessLevel.ApiKey:
        return this.authenticateApiKey(req);
    }
  }

  private levelOf(context: ExecutionContext): AccessLevel {
    const handler = context.getHandler();
    let level = this.levels.get(handler);
    if (level === undefined) {
      level =
        this.reflector.getAllAndOverride<AccessLevel | undefined>(ACCESS_METADATA, [handler, context.getClass()]) ??
        AccessLevel.ApiKey;
      this.levels.set(handler, level);
    }
    return level;
  }

  private authenticateAdmin(req: Request): boolean {
    if (!this.config.ADMIN_TOKEN) throw DomainError.notFound('route');
    const token = bearerToken(req.headers.authorization);
    if (!token || !matchesAdminToken(token, this.config.ADMIN_TOKEN)) {
      throw new DomainError(
        ErrorCode.Unauthorized,
        'A valid admin token is required: Authorization: Bearer <ADMIN_TOKEN>.',
      );
    }
    return true;
  }

  private async authenticateApiKey(req: Request): Promise<boolean> {
    const token = bearerToken(req.headers.authorization);
    if (!token) {
      throw new DomainError(ErrorCode.Unauthorized, 'Send your API key as Authorization: Bearer <API_KEY>.');
    }
    const key = await this.apiKeys.authenticate(token, req.ip ?? 'unknown');
    const refusal = apiAccessRefusal(key);
    if (refusal) throw refusal;
    req.auth = { keyId: key.keyId, accountId: key.accountId, environment: key.environment };
    return true;
  }
}
