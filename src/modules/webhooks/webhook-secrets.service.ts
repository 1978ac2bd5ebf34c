import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { AccountsRepository } from '../accounts/accounts.repository';
import { generateWebhookSecret } from './webhook-signature';

/**
 * Per-account signing secrets. The current secret is created on first use; rotation keeps the
 * previous one signing for WEBHOOK_SECRET_OVERLAP_SECONDS, so receivers can switch without
 * rejecting a delivery.
 */
@Injectable()
export class WebhookSecretsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountsRepository,
  ) {}

  async current(accountId: string): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockAccount(manager, accountId);
      const [row]: Array<{ secret: string }> = await manager.query(
        `SELECT secret FROM webhook_secrets WHERE account_id = $1 AND expires_at IS NULL`,
        [accountId],
      );
      return row?.secret ?? (await this.insert(manager, accountId));
    });
  }

  /** A new current secret; the one it replaces signs too until the overlap ends. */
  async rotate(accountId: string): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockAccount(manager, accountId);
      await manager.query(
        `UPDATE webhook_secrets SET expires_at = now() + make_interval(secs => $2)
          WHERE account_id = $1 AND expires_at IS NULL`,
        [accountId, this.config.WEBHOOK_SECRET_OVERLAP_SECONDS],
      );
      return this.insert(manager, accountId);
    });
  }

  /** Serialises secret creation per account, and answers 404 for an unknown account. */
  private async lockAccount(manager: EntityManager, accountId: string): Promise<void> {
    if (!(await this.accounts.lock(manager, accountId))) throw DomainError.notFound('account');
  }

  private async insert(manager: EntityManager, accountId: string): Promise<string> {
    const secret = generateWebhookSecret();
    await manager.query(`INSERT INTO webhook_secrets (id, account_id, secret) VALUES ($1, $2, $3)`, [
      randomUUID(),
      accountId,
      secret,
    ]);
    return secret;
  }
}
