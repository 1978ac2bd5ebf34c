import type { Account } from '../accounts/account.entity';
import type { ApiKey } from '../auth/api-key.entity';
import type { AccountDto, ApiKeyDto } from './admin.dto';

export function presentAccount(account: Account): AccountDto {
  return {
    id: account.id,
    name: account.name,
    api_access: account.apiAccess,
    restricted_until: account.restrictedUntil?.toISOString() ?? null,
    paid_credits: account.paidCredits,
    review_threshold: account.reviewThreshold,
    created_at: account.createdAt.toISOString(),
  };
}

export function presentApiKey(key: ApiKey): ApiKeyDto {
  return {
    id: key.id,
    environment: key.environment,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
  };
}
