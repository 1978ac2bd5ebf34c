import { Injectable } from '@nestjs/common';
import { DomainError } from '../../core/errors/domain-error';
import type { Account } from './account.entity';
import { AccountsRepository, type AccountPatch } from './accounts.repository';

export interface AccountChanges {
  apiAccess?: boolean;
  /** `null` lifts a restriction; `undefined` leaves it as it is. */
  restrictedUntil?: Date | null;
  /** 0..1: cut-outs completing from now on with an uncertainty at least this are flagged for review. */
  reviewThreshold?: number;
}

@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  async get(id: string): Promise<Account> {
    const account = await this.accounts.findById(id);
    if (!account) throw DomainError.notFound('account');
    return account;
  }

  /**
   * Applies the changes to an existing account (404 if there is none). Returns whether anything
   * was written: the caller must then drop the cached lookups of the account's keys.
   */
  async update(id: string, changes: AccountChanges): Promise<boolean> {
    const patch: AccountPatch = {};
    if (changes.apiAccess !== undefined) patch.apiAccess = changes.apiAccess;
    if (changes.restrictedUntil !== undefined) patch.restrictedUntil = changes.restrictedUntil;
    if (changes.reviewThreshold !== undefined) patch.reviewThreshold = changes.reviewThreshold;
    await this.get(id);
    if (Object.keys(patch).length === 0) return false;
    await this.accounts.update(id, patch);
    return true;
  }
}
