import { createHash, randomInt } from 'node:crypto';
import { KeyEnvironment } from './api-key.entity';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
const DISPLAY_CHARS = 4;
const KEY_FORMAT = /^sk_(live|sandbox)_[A-Za-z0-9]{32,128}$/;

export interface NewKeySecret {
  secret: string;
  prefix: string;
  hash: string;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** `sk_<environment>_<40 base62>`; `randomInt` draws without modulo bias. */
export function generateKeySecret(environment: KeyEnvironment): NewKeySecret {
  let body = '';
  for (let i = 0; i < SECRET_LENGTH; i++) body += BASE62[randomInt(BASE62.length)];
  const secret = `sk_${environment}_${body}`;
  return { secret, prefix: `sk_${environment}_${body.slice(0, DISPLAY_CHARS)}`, hash: hashSecret(secret) };
}

/** Cheap shape check so malformed keys are refused without touching the database. */
export function isWellFormedKey(secret: string): boolean {
  return KEY_FORMAT.test(secret);
}
