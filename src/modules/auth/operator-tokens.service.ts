import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { matchesAnyToken } from '../../core/http/credentials';
import { metricsTokens } from '../../core/metrics/metrics-tokens';
import { FailedAuthLimitService, FailedCredential } from '../rate-limit/failed-auth-limit.service';

/** What an operator's token opens. */
export enum OperatorArea {
  /** The admin API (`/admin/v1`) and Bull Board (`/admin/queues`): ADMIN_TOKEN alone. */
  Admin = 'admin',
  /** `/metrics`: METRICS_TOKEN, or ADMIN_TOKEN. */
  Metrics = 'metrics',
}

/**
 * Checks the operator's tokens (ADMIN_TOKEN, METRICS_TOKEN) as API keys are checked: in
 * constant time, and with the failures of each client IP limited, so a scan for the token is
 * answered 429 once the IP has failed too often. The right token always passes.
 */
@Injectable()
export class OperatorTokensService {
  private readonly tokens: Record<OperatorArea, string[]>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly failedAuth: FailedAuthLimitService,
  ) {
    this.tokens = {
      [OperatorArea.Admin]: config.ADMIN_TOKEN ? [config.ADMIN_TOKEN] : [],
      [OperatorArea.Metrics]: metricsTokens(config),
    };
  }

  /**
   * Passes when `presented` opens `area`. Otherwise 404 when no token opens it (the area does
   * not exist, as the contract says of the admin API without ADMIN_TOKEN), 401 when no token was
   * presented, and for a wrong token 401, or 429 once `clientIp` has used up its failures. A
   * missing token is not counted: a browser asks once without one before it prompts.
   */
  async authenticate(area: OperatorArea, presented: string | null, clientIp: string): Promise<void> {
    const tokens = this.tokens[area];
    if (tokens.length === 0) throw DomainError.notFound('route');
    if (presented && matchesAnyToken(presented, tokens)) return;
    if (presented) await this.failedAuth.recordFailure(FailedCredential.OperatorToken, clientIp);
    throw new DomainError(ErrorCode.Unauthorized, unauthorizedMessage(area));
  }
}

function unauthorizedMessage(area: OperatorArea): string {
  switch (area) {
    case OperatorArea.Admin:
      return 'A valid admin token is required: Authorization: Bearer <ADMIN_TOKEN>.';
    case OperatorArea.Metrics:
      return 'A valid metrics token is required: Authorization: Bearer <METRICS_TOKEN>.';
  }
}
