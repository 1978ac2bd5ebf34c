import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import type { ResolvedKey } from './key-lookup-cache';

/**
 * Why a valid key may not call the API at `now`: its account's API access is switched off
 * (403 `api_access_disabled`) or restricted until a later time (403 `account_restricted`).
 * Null when it may.
 */
export function apiAccessRefusal(
  key: Pick<ResolvedKey, 'apiAccess' | 'restrictedUntil'>,
  now = Date.now(),
): DomainError | null {
  if (!key.apiAccess) {
    return new DomainError(ErrorCode.ApiAccessDisabled, 'API access is not enabled for this account.');
  }
  if (key.restrictedUntil && key.restrictedUntil.getTime() > now) {
    return new DomainError(ErrorCode.AccountRestricted, 'This account is temporarily restricted.', {
      restricted_until: key.restrictedUntil.toISOString(),
    });
  }
  return null;
}
