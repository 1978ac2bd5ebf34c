import { createHmac } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { InvalidStorageKeyError } from './result-storage';
import { ResultUrlSigner, SIGNING_SECRET_NAME, type ResultUrlSettings } from './result-url.signer';
import { ServiceSecretsRepository } from './service-secrets.repository';

const SECRET = 'test-result-url-secret-0123456789abcdef';
const KEY = 'results/0b6f3c1e-0e0c-4a3e-9f1a-2c3d4e5f6a7b/5a1b2c3d.png';
const NOW = new Date('2026-01-01T00:00:00Z');
const NOW_SECONDS = NOW.getTime() / 1000;
const WEEK = 7 * 24 * 3600;

const settings = (overrides: Partial<ResultUrlSettings> = {}): ResultUrlSettings => ({
  PUBLIC_BASE_URL: 'https://images.example.com',
  RESULT_URL_TTL_SECONDS: WEEK,
  RESULT_URL_SECRET: SECRET,
  ...overrides,
});

/** Only the one method the secrets' repository calls; any other use of the database would throw. */
type QueryFn = (sql: string, parameters?: unknown[]) => Promise<unknown>;
const databaseWith = (query: QueryFn) => new ServiceSecretsRepository({ query } as unknown as DataSource);
const noDatabase = databaseWith(() => Promise.reject(new Error('the database must not be used')));

/** The parts of a signed URL. */
function parse(url: string) {
  const parsed = new URL(url);
  return {
    origin: parsed.origin,
    key: parsed.pathname.replace(/^\/api\/v1\/files\//, ''),
    expires: parsed.searchParams.get('expires') ?? '',
    signature: parsed.searchParams.get('signature') ?? '',
  };
}

describe(ResultUrlSigner.name, () => {
  const signer = new ResultUrlSigner(settings(), noDatabase);

  it('signs an absolute URL under /api/v1/files that expires after the TTL', () => {
    const url = signer.sign(KEY, NOW);
    expect(url.startsWith(`https://images.example.com/api/v1/files/${KEY}?expires=`)).toBe(true);
    const { origin, key, expires, signature } = parse(url);
    expect({ origin, key, expires }).toEqual({
      origin: 'https://images.example.com',
      key: KEY,
      expires: String(NOW_SECONDS + WEEK),
    });
    const expected = createHmac('sha256', SECRET).update(`${KEY}:${expires}`).digest('base64url');
    expect(signature).toBe(expected);
  });

  it('keeps a path prefix of PUBLIC_BASE_URL', () => {
    const prefixed = new ResultUrlSigner(settings({ PUBLIC_BASE_URL: 'https://example.com/imgjobs' }), noDatabase);
    expect(prefixed.sign(KEY, NOW)).toMatch(/^https:\/\/example\.com\/imgjobs\/api\/v1\/files\/results\//);
  });

  it('accepts its own URL until it expires, and not from then on', () => {
    const { key, expires, signature } = parse(signer.sign(KEY, NOW));
    expect(signer.verify(key, expires, signature, NOW)).toBe(true);
    expect(signer.verify(key, expires, signature, new Date((NOW_SECONDS + WEEK - 1) * 1000))).toBe(true);
    expect(signer.verify(key, expires, signature, new Date((NOW_SECONDS + WEEK) * 1000))).toBe(false);
    expect(signer.verify(key, expires, signature, new Date((NOW_SECONDS + 2 * WEEK) * 1000))).toBe(false);
  });

  it('uses RESULT_URL_TTL_SECONDS', () => {
    const short = new ResultUrlSigner(settings({ RESULT_URL_TTL_SECONDS: 60 }), noDatabase);
    const { key, expires, signature } = parse(short.sign(KEY, NOW));
    expect(expires).toBe(String(NOW_SECONDS + 60));
    expect(short.verify(key, expires, signature, new Date(NOW.getTime() + 59_000))).toBe(true);
    expect(short.verify(key, expires, signature, new Date(NOW.getTime() + 60_000))).toBe(false);
  });

  it('refuses a URL whose key was changed', () => {
    const { expires, signature } = parse(signer.sign(KEY, NOW));
    expect(signer.verify(KEY.replace('.png', '.thumb.webp'), expires, signature, NOW)).toBe(false);
    expect(signer.verify(KEY.replace('5a1b', '5a1c'), expires, signature, NOW)).toBe(false);
  });

  it('refuses a URL whose expiry was changed, even to an equal number', () => {
    const { key, expires, signature } = parse(signer.sign(KEY, NOW));
    expect(signer.verify(key, String(Number(expires) + 3600), signature, NOW)).toBe(false);
    expect(signer.verify(key, `0${expires}`, signature, NOW)).toBe(false);
  });

  it('refuses a changed or foreign signature', () => {
    const { key, expires, signature } = parse(signer.sign(KEY, NOW));
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(signer.verify(key, expires, flipped, NOW)).toBe(false);
    // Every other last character, including those that decode to the same 32 bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const last of alphabet.replace(signature.slice(-1), '')) {
      expect(signer.verify(key, expires, `${signature.slice(0, -1)}${last}`, NOW)).toBe(false);
    }
    const other = new ResultUrlSigner(
      settings({ RESULT_URL_SECRET: 'another-secret-of-at-least-32-characters' }),
      noDatabase,
    );
    expect(other.verify(key, expires, signature, NOW)).toBe(false);
  });

  it.each([
    ['an empty expiry', { expires: '' }],
    ['a non-numeric expiry', { expires: 'soon' }],
    ['a decimal expiry', { expires: '1767225600.5' }],
    ['an exponent expiry', { expires: '1e12' }],
    ['a negative expiry', { expires: '-1' }],
    ['an absurdly long expiry', { expires: '9'.repeat(40) }],
    ['an empty signature', { signature: '' }],
    ['a short signature', { signature: 'abc' }],
    ['a padded signature', { signature: `${'A'.repeat(43)}=` }],
    ['a base64 (not url) signature', { signature: `${'A'.repeat(42)}+` }],
    ['a traversal key', { key: '../secrets.png' }],
    ['an empty key', { key: '' }],
  ])('refuses %s without throwing', (_case, change) => {
    const valid = parse(signer.sign(KEY, NOW));
    const { key, expires, signature } = { ...valid, ...change };
    expect(signer.verify(key, expires, signature, NOW)).toBe(false);
  });

  it('will not sign a key storage would refuse', () => {
    expect(() => signer.sign('../outside.png', NOW)).toThrow(InvalidStorageKeyError);
  });

  it('reports the seconds left before an expiry', () => {
    expect(signer.secondsUntilExpiry(String(NOW_SECONDS + 90), NOW)).toBe(90);
    expect(signer.secondsUntilExpiry(String(NOW_SECONDS - 90), NOW)).toBe(0);
    expect(signer.secondsUntilExpiry('garbage', NOW)).toBe(0);
  });

  describe('without RESULT_URL_SECRET', () => {
    const unset = settings({ RESULT_URL_SECRET: undefined });

    it('loads the shared secret from service_secrets once, creating it if absent', async () => {
      const calls: Array<{ sql: string; parameters?: unknown[] }> = [];
      const stored = 'secret-kept-in-postgresql-0123456789abcdef';
      const database = databaseWith(async (sql, parameters) => {
        calls.push({ sql, parameters });
        return sql.startsWith('SELECT') ? [{ value: stored }] : [];
      });
      const fromDatabase = new ResultUrlSigner(unset, database);
      await fromDatabase.onModuleInit();

      expect(calls).toHaveLength(2);
      expect(calls[0].sql).toMatch(/INSERT INTO service_secrets .* ON CONFLICT \(name\) DO NOTHING/);
      expect(calls[0].parameters?.[0]).toBe(SIGNING_SECRET_NAME);
      expect(calls[0].parameters?.[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(calls[1]).toEqual({
        sql: expect.stringMatching(/^SELECT value FROM service_secrets/),
        parameters: [SIGNING_SECRET_NAME],
      });

      // It signs with the stored secret (a concurrent instance's, if that one won), not its own candidate.
      const { key, expires, signature } = parse(fromDatabase.sign(KEY, NOW));
      expect(signature).toBe(createHmac('sha256', stored).update(`${key}:${expires}`).digest('base64url'));
    });

    it('does not touch the database when RESULT_URL_SECRET is set', async () => {
      await expect(new ResultUrlSigner(settings(), noDatabase).onModuleInit()).resolves.toBeUndefined();
    });

    it('refuses to sign before it has a secret', () => {
      expect(() => new ResultUrlSigner(unset, noDatabase).sign(KEY, NOW)).toThrow(/before its module was initialised/);
    });
  });
});
