import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 24 base62 characters: about 143 random bits, so an id cannot be guessed. */
const ID_BODY_LENGTH = 24;
const UPLOAD_ID = /^upl_[A-Za-z0-9]{24}$/;
const UPLOAD_URL = /^upload:\/\/(upl_[A-Za-z0-9]{24})$/;

/**
 * Uploaded sources are named by `upload://<upload id>` wherever a create request takes a source
 * URL. The scheme is the service's own: such a URL is never fetched over HTTP, the worker reads
 * the upload from result storage. Shared by request validation, the uploads module and the
 * worker's source loading, which is why it sits in core.
 */
export const UPLOAD_URL_PREFIX = 'upload://';

/** `upl_<24 base62>`; `randomInt` draws without modulo bias. */
export function newUploadId(): string {
  let body = '';
  for (let i = 0; i < ID_BODY_LENGTH; i++) body += BASE62[randomInt(BASE62.length)];
  return `upl_${body}`;
}

export function isUploadId(value: string): boolean {
  return UPLOAD_ID.test(value);
}

export function uploadUrlOf(uploadId: string): string {
  return `${UPLOAD_URL_PREFIX}${uploadId}`;
}

/** The upload id an `upload://` URL names, or null when `url` is not a well-formed upload URL. */
export function uploadIdOf(url: string): string | null {
  return UPLOAD_URL.exec(url)?.[1] ?? null;
}

/** True for any URL in the upload scheme, well-formed or not: such a URL is never fetched. */
export function isUploadScheme(url: string): boolean {
  return url.toLowerCase().startsWith(UPLOAD_URL_PREFIX);
}
