/**
 * Query parameters whose value is a credential. A signed result URL works for days (contract
 * section 13), so its `signature` must never reach a log line; S3-style presigned URLs and the
 * usual token parameters are covered too. Compared case-insensitively.
 */
const CREDENTIAL_PARAMETERS: ReadonlySet<string> = new Set([
  'signature',
  'sig',
  'token',
  'access_token',
  'refresh_token',
  'api_key',
  'apikey',
  'secret',
  'password',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
]);

const REDACTED = '[redacted]';

function parameterName(rawName: string): string {
  try {
    return decodeURIComponent(rawName.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    // Malformed percent-encoding: compare the raw spelling rather than let a credential through unredacted.
    return rawName.toLowerCase();
  }
}

/**
 * The URL with the value of every credential-bearing query parameter replaced by `[redacted]`.
 * Works on the raw text (no parse and re-serialise), so the path and the other parameters are
 * logged exactly as they arrived.
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const fragmentStart = url.indexOf('#', queryStart);
  const queryEnd = fragmentStart < 0 ? url.length : fragmentStart;
  const query = url
    .slice(queryStart + 1, queryEnd)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      return CREDENTIAL_PARAMETERS.has(parameterName(rawName)) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryStart + 1)}${query}${url.slice(queryEnd)}`;
}
