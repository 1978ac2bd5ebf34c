/** Connection-level failure codes of Node sockets and PostgreSQL (admin shutdown, cannot connect now, too many connections). */
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P03', '53300']);
const OUTAGE_MESSAGES = /Connection terminated|Connection is closed|timeout exceeded when trying to connect|Reached the max retries per request limit/i;

/** Whether an error means PostgreSQL or Redis cannot be reached, rather than a bug. */
export function isInfrastructureOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  const cause = (error as { driverError?: unknown }).driverError;
  return (
    (typeof code === 'string' && OUTAGE_CODES.has(code)) ||
    OUTAGE_MESSAGES.test(error.message) ||
    (cause !== undefined && cause !== error && isInfrastructureOutage(cause))
  );
}
