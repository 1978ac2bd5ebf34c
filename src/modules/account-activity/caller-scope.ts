import { KeyEnvironment } from '../auth/api-key.entity';
import type { AuthContext } from '../auth/auth-context';

/** A page of the account's reads without `limit`, as for `GET /jobs`. */
export const DEFAULT_PAGE_SIZE = 20;

/** A sandbox key sees sandbox data only, as it does jobs. */
export const isSandboxKey = (caller: AuthContext) => caller.environment === KeyEnvironment.Sandbox;
