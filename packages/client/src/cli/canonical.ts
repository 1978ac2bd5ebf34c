import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth and undefined members left out, so two values
 * that mean the same always hash the same, whatever order their options were written in.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
