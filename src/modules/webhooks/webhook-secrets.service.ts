import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { AccountsRepository } from '../accounts/accounts.repository';
import { WebhookSecretsRepository } from './webhook-secrets.repository';
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
    private readonly secrets: WebhookSecretsRepository,
  ) {}

  async current(accountId: string): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockAccount(manager, accountId);
      return (await this.secrets.findCurrent(manager, accountId)) ?? (await this.insert(manager, accountId));
    });
  }

  /** A new current secret; the one it replaces signs too until the overlap ends. */
  async rotate(accountId: string): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      await this.lockAccount(manager, accountId);
      await this.secrets.expireCurrent(manager, accountId, this.config.WEBHOOK_SECRET_OVERLAP_SECONDS);
      return this.insert(manager, accountId);
    });
  }

  /** Serialises secret creation per account, and answers 404 for an unknown account. */
  private async lockAccount(manager: EntityManager, accountId: string): Promise<void> {
    if (!(await this.accounts.lock(manager, accountId))) throw DomainError.notFound('account');
  }

  private async insert(manager: EntityManager, accountId: string): Promise<string> {
    const secret = generateWebhookSecret();
    await this.secrets.insertCurrent(manager, accountId, secret);
    return secret;
  }
}
