import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header (the scheme case-insensitive, RFC 9110), or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}

/** The password of an `Authorization: Basic` header, or null: what a browser sends for a basic-auth prompt. */
export function basicPassword(header: string | undefined): string | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : null;
}

/**
 * Whether `presented` is one of the configured `tokens`, in time that tells nothing of how much
 * of it matched: the digests compared have one length whatever was presented, and every token
 * is compared.
 */
export function matchesAnyToken(presented: string, tokens: readonly string[]): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const presentedDigest = digest(presented);
  let matched = false;
  for (const token of tokens) matched = timingSafeEqual(presentedDigest, digest(token)) || matched;
  return matched;
}
