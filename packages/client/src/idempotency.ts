import { randomUUID } from 'node:crypto';

/**
 * A fresh `Idempotency-Key` (a UUID: 36 characters of the allowed alphabet). Keep it beside the work it stands for
 * and send it again to retry: the service answers a repeat with the job the first request made (for 24 hours).
 */
export function newIdempotencyKey(): string {
  return randomUUID();
}
