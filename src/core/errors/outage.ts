import { isRetryableTransactionError } from '../database/transaction-retry';

/**
 * Connection-level failure codes: Node sockets and DNS, and PostgreSQL's SQLSTATEs for a server
 * going away or refusing connections (class 08 connection exceptions; 57P01 admin shutdown,
 * 57P02 crash shutdown, 57P03 cannot connect now; 53300 too many connections), or too busy to
 * answer in time.
 */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // A statement cut off by statement_timeout: the database is too busy to answer now, which a
  // client should retry later (503), not a bug in the request (500). Contention that outlasted
  // the transaction retries counts the same way (`isRetryableTransactionError` below).
  '57014',
]);

/**
 * Messages of the same failures where the drivers give no code:
 * - pg: `Connection terminated unexpectedly`, `Connection terminated due to connection timeout`,
 *   `timeout exceeded when trying to connect`, and the client that errored or was closed
 *   (`Client has encountered a connection error and is not queryable`, `Client was closed and is not queryable`);
 * - ioredis: `Connection is closed.`, `Reached the max retries per request limit`
 *   (MaxRetriesPerRequestError), `Command timed out`, the offline queue being off
 *   (`Stream isn't writeable`), and a server not yet serving or failing over
 *   (`LOADING`, `READONLY`, `MASTERDOWN`, `CLUSTERDOWN`, `TRYAGAIN`).
 */
const OUTAGE_MESSAGES =
  /Connection terminated|Connection is closed|timeout exceeded when trying to connect|Reached the max retries per request limit|is not queryable|Command timed out|Stream isn't writeable|^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN)\b/i;

/**
 * Error classes that only a lost connection produces in this code: TypeORM releases the query
 * runner of a connection that died, and the next statement of that transaction meets one of these.
 */
const OUTAGE_ERROR_NAMES = new Set([
  'MaxRetriesPerRequestError',
  'QueryRunnerAlreadyReleasedError',
  'QueryRunnerProviderAlreadyReleasedError',
]);

/** Whether an error means PostgreSQL or Redis cannot be reached, rather than a bug. */
export function isInfrastructureOutage(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && OUTAGE_CODES.has(code)) return true;
  if (isRetryableTransactionError(error)) return true;
  if (OUTAGE_ERROR_NAMES.has(error.name) || OUTAGE_ERROR_NAMES.has(error.constructor.name)) return true;
  if (OUTAGE_MESSAGES.test(error.message)) return true;
  // TypeORM keeps the driver's error as driverError; Node and Nest chain it as cause; a failed
  // connect to several addresses is an AggregateError of the attempts.
  const wrapped = [(error as { driverError?: unknown }).driverError, error.cause];
  if (error instanceof AggregateError) wrapped.push(...(error.errors as unknown[]));
  return wrapped.some((inner) => inner !== undefined && inner !== error && isInfrastructureOutage(inner, depth + 1));
}
