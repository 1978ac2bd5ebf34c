import { createHash } from 'node:crypto';
import { KeyEnvironment } from './api-key.entity';
import { generateKeySecret, hashSecret, isWellFormedKey } from './api-key-secret';

describe('api key secrets', () => {
  describe(generateKeySecret.name, () => {
    it.each([KeyEnvironment.Live, KeyEnvironment.Sandbox])(
      'makes sk_%s_ followed by 40 base62 characters',
      (environment) => {
        const { secret } = generateKeySecret(environment);
        expect(secret).toMatch(new RegExp(`^sk_${environment}_[0-9A-Za-z]{40}$`));
        expect(isWellFormedKey(secret)).toBe(true);
      },
    );

    it('gives a short display prefix: the environment plus the first 4 secret characters', () => {
      const { secret, prefix } = generateKeySecret(KeyEnvironment.Live);
      expect(prefix).toMatch(/^sk_live_[0-9A-Za-z]{4}$/);
      expect(secret.startsWith(prefix)).toBe(true);
      expect(prefix.length).toBeLessThan(secret.length);
    });

    it('stores the SHA-256 hex of the secret as its hash', () => {
      const { secret, hash } = generateKeySecret(KeyEnvironment.Sandbox);
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(hash).toBe(createHash('sha256').update(secret).digest('hex'));
      expect(hash).toBe(hashSecret(secret));
    });

    it('never repeats a secret', () => {
      const secrets = new Set(Array.from({ length: 200 }, () => generateKeySecret(KeyEnvironment.Live).secret));
      expect(secrets.size).toBe(200);
    });
  });

  describe(hashSecret.name, () => {
    it('is the SHA-256 hex digest', () => {
      expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    });
  });

  describe(isWellFormedKey.name, () => {
    it.each([`sk_live_${'a'.repeat(32)}`, `sk_sandbox_${'Z9'.repeat(16)}`, `sk_live_${'x'.repeat(128)}`])(
      'accepts %s',
      (key) => {
        expect(isWellFormedKey(key)).toBe(true);
      },
    );

    it.each([
      ['too short', `sk_live_${'a'.repeat(31)}`],
      ['too long', `sk_live_${'a'.repeat(129)}`],
      ['unknown environment', `sk_test_${'a'.repeat(32)}`],
      ['no prefix', 'a'.repeat(40)],
      ['non-base62 character', `sk_live_${'a'.repeat(31)}-`],
      ['trailing space', `sk_live_${'a'.repeat(32)} `],
      ['uppercase prefix', `SK_LIVE_${'a'.repeat(32)}`],
      ['empty', ''],
    ])('refuses a key that is %s', (_reason, key) => {
      expect(isWellFormedKey(key)).toBe(false);
    });
  });
});
