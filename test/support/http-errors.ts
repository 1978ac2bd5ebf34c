import type { Response } from 'supertest';

/** The body's `error`, as the error envelope carries it. */
export interface ErrorBody {
  code: string;
  message: string;
  details?: unknown;
}

/**
 * Asserts that `res` is the JSON error envelope (status, code, a message, the request id of the
 * `X-Request-Id` header) with nothing of a stack trace in it, and returns the body's `error`.
 */
export function expectError(res: Response, status: number, code: string): ErrorBody {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(typeof res.body.request_id).toBe('string');
  expect(res.body.request_id.length).toBeGreaterThan(0);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
  expect(JSON.stringify(res.body)).not.toMatch(/stack|\n\s+at |\.ts:\d+|node_modules/);
  return res.body.error;
}
