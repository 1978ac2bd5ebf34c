import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { rewriteRateLimitHeadersAfterRefund, setRateLimitHeaders } from './rate-limit.headers';
import type { RateLimitDecision } from './rate-limit.types';

class FakeResponse extends EventEmitter {
  headers: Record<string, string> = {};
  headersSent = false;
  setHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }
}

function decision(remaining: number, token: string | null): RateLimitDecision {
  return { allowed: true, limit: 5, remaining, resetSeconds: 60, retryAfterSeconds: null, scope: 'key', token };
}

describe(setRateLimitHeaders.name, () => {
  it('writes the RateLimit-* headers of a decision', () => {
    const res = new FakeResponse();
    setRateLimitHeaders(res as unknown as Response, { ...decision(-1, null), allowed: false, retryAfterSeconds: 7 });
    expect(res.headers).toEqual({ 'RateLimit-Limit': '5', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '60' });
  });

  it('rewrites the headers of the same response when its slot is refunded before it is sent', () => {
    const res = new FakeResponse();
    setRateLimitHeaders(res as unknown as Response, decision(3, 'token-a'));
    rewriteRateLimitHeadersAfterRefund('token-a', decision(4, null));
    expect(res.headers['RateLimit-Remaining']).toBe('4');
  });

  it('leaves a response alone once it is sent or closed, and forgets it', () => {
    const sent = new FakeResponse();
    setRateLimitHeaders(sent as unknown as Response, decision(3, 'token-b'));
    sent.headersSent = true;
    rewriteRateLimitHeadersAfterRefund('token-b', decision(4, null));
    expect(sent.headers['RateLimit-Remaining']).toBe('3');

    const closed = new FakeResponse();
    setRateLimitHeaders(closed as unknown as Response, decision(3, 'token-c'));
    closed.emit('close');
    rewriteRateLimitHeadersAfterRefund('token-c', decision(4, null));
    expect(closed.headers['RateLimit-Remaining']).toBe('3');
  });
});
