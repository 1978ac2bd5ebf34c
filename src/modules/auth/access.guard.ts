import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { ACCESS_METADATA, AccessLevel } from '../../core/http/access.decorator';
import { bearerToken } from '../../core/http/credentials';
import { apiAccessRefusal } from './api-access';
import { ApiKeysService } from './api-keys.service';
import { OperatorArea, OperatorTokensService } from './operator-tokens.service';

/**
 * One guard for every route: API-key routes (the default) get a typed AuthContext on the
 * request; admin routes need ADMIN_TOKEN and do not exist while it is unset; `/metrics` needs
 * METRICS_TOKEN or ADMIN_TOKEN and does not exist while neither is set.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  /** Route metadata is fixed once the app is built: each handler's level is read once. */
  private readonly levels = new WeakMap<object, AccessLevel>();

  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly operatorTokens: OperatorTokensService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const level = this.levelOf(context);
    const req = context.switchToHttp().getRequest<Request>();
    switch (level) {
      case AccessLevel.Public:
        return true;
      case AccessLevel.Admin:
        return this.authenticateOperator(OperatorArea.Admin, req);
      case AccessLevel.Metrics:
        return this.authenticateOperator(OperatorArea.Metrics, req);
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

  private async authenticateOperator(area: OperatorArea, req: Request): Promise<boolean> {
    await this.operatorTokens.authenticate(area, bearerToken(req.headers.authorization), req.ip ?? 'unknown');
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
