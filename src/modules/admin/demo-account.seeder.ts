import { Injectable } from '@nestjs/common';
import type { DemoCredentials } from '../../core/bootstrap/development-credentials';
import { AccountsRepository } from '../accounts/accounts.repository';
import { KeyEnvironment } from '../auth/api-key.entity';
import { AdminService } from './admin.service';

const DEMO_ACCOUNT_NAME = 'Demo account';

/** The demo account a development run (`npm start` with nothing configured) starts with. */
@Injectable()
export class DemoAccountSeeder {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly admin: AdminService,
  ) {}

  /** On a database with no accounts, creates a demo account with credits and one key of each kind. */
  async seedIfEmpty(credits: number): Promise<DemoCredentials | null> {
    if ((await this.accounts.count()) > 0) return null;
    const account = await this.admin.createAccount({ name: DEMO_ACCOUNT_NAME, credits, apiAccess: true });
    const live = await this.admin.issueKey(account.id, KeyEnvironment.Live, 'demo live key');
    const sandbox = await this.admin.issueKey(account.id, KeyEnvironment.Sandbox, 'demo sandbox key');
    return { accountId: account.id, liveKey: live.secret, sandboxKey: sandbox.secret };
  }
}
