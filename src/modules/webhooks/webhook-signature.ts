import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** `whsec_` and the base64 of 32 random bytes (contract section 11). */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks signature over `<id>.<timestamp>.<body>`, one `v1,<base64>` per secret,
 * space-separated. Written out rather than taken from the `standardwebhooks` package, which
 * signs with one secret only; rotation needs several. Tests verify it with that package.
 */
export function signWebhook(secrets: readonly string[], eventId: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
      const digest = createHmac('sha256', key).update(`${eventId}.${timestamp}.${body}`).digest('base64');
      return `v1,${digest}`;
    })
    .join(' ');
}
