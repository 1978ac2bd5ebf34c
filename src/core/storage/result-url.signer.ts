import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { assertValidStorageKey, isValidStorageKey } from './result-storage';
import { ServiceSecretsRepository } from './service-secrets.repository';

/** Path under PUBLIC_BASE_URL where the API serves stored files. */
export const FILES_PATH = 'api/v1/files';

/** The `service_secrets` row holding the shared secret when RESULT_URL_SECRET is not set. */
export const SIGNING_SECRET_NAME = 'result_url_signing';

/** Unix seconds: digits only, so `1e12`, `0x10` or `+5` cannot name the same expiry twice. */
const EXPIRES_FORMAT = /^[0-9]{1,12}$/;
/** A base64url HMAC-SHA256 without padding is always 43 characters. */
const SIGNATURE_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export type ResultUrlSettings = Pick<AppConfig, 'PUBLIC_BASE_URL' | 'RESULT_URL_TTL_SECONDS' | 'RESULT_URL_SECRET'>;

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * Signed, expiring URLs for stored results (contract section 13). The secret is RESULT_URL_SECRET
 * when set; otherwise one generated once and kept in PostgreSQL, so every API and worker
 * instance signs and verifies alike with no setting to distribute.
 */
@Injectable()
export class ResultUrlSigner implements OnModuleInit {
  private secret: string | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: ResultUrlSettings,
    private readonly secrets: ServiceSecretsRepository,
  ) {
    this.secret = config.RESULT_URL_SECRET;
  }

  async onModuleInit(): Promise<void> {
    if (this.secret === undefined) this.secret = await this.loadStoredSecret();
  }

  /** An absolute URL for `key`, valid for RESULT_URL_TTL_SECONDS from `now`. */
  sign(key: string, now: Date = new Date()): string {
    assertValidStorageKey(key);
    const expires = String(unixSeconds(now) + this.config.RESULT_URL_TTL_SECONDS);
    const query = new URLSearchParams({ expires, signature: this.signatureOf(key, expires) });
    return `${this.config.PUBLIC_BASE_URL}/${FILES_PATH}/${key}?${query.toString()}`;
  }

  /** Whether `signature` was made by `sign` for this key and expiry, and has not expired at `now`. */
  verify(key: string, expires: string, signature: string, now: Date = new Date()): boolean {
    if (!isValidStorageKey(key) || !EXPIRES_FORMAT.test(expires) || !SIGNATURE_FORMAT.test(signature)) return false;
    if (unixSeconds(now) >= Number(expires)) return false;
    // Compared as text, not decoded: the last base64url character carries 2 unused bits, so
    // decoding would accept several spellings of one signature.
    const presented = Buffer.from(signature, 'latin1');
    const expected = Buffer.from(this.signatureOf(key, expires), 'latin1');
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }

  /** Whole seconds from `now` until a URL with this `expires` stops working (0 once expired). */
  secondsUntilExpiry(expires: string, now: Date = new Date()): number {
    return EXPIRES_FORMAT.test(expires) ? Math.max(0, Number(expires) - unixSeconds(now)) : 0;
  }

  private signatureOf(key: string, expires: string): string {
    if (this.secret === undefined) {
      throw new Error(`${ResultUrlSigner.name} is used before its module was initialised`);
    }
    // Keys cannot contain ":", so "<key>:<expires>" cannot be read as another key and expiry.
    return createHmac('sha256', this.secret).update(`${key}:${expires}`).digest('base64url');
  }

  /** Reads the shared secret, creating it first if no instance has yet. */
  private async loadStoredSecret(): Promise<string> {
    const secret = await this.secrets.storedOrCreated(SIGNING_SECRET_NAME, randomBytes(32).toString('base64url'));
    if (secret === null) throw new Error(`The ${SIGNING_SECRET_NAME} secret could not be read from service_secrets`);
    return secret;
  }
}
