import { DeliveryStatus } from '../webhook.entities';
import { judgeAttempt, type RetrySchedule } from './attempt-verdict';

describe(judgeAttempt.name, () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const schedule: RetrySchedule = { maxAttempts: 3, delayBefore: (attempt) => attempt * 1000 };

  it('delivers on any 2xx and schedules nothing more', () => {
    for (const statusCode of [200, 204, 299]) {
      expect(judgeAttempt({ kind: 'response', statusCode }, 1, schedule, now)).toEqual({
        outcome: DeliveryStatus.Delivered,
        status: DeliveryStatus.Delivered,
        statusCode,
        error: null,
        nextAttemptAt: null,
      });
    }
  });

  it('stops at 410 Gone, even with attempts left', () => {
    expect(judgeAttempt({ kind: 'response', statusCode: 410 }, 1, schedule, now)).toMatchObject({
      outcome: DeliveryStatus.Gone,
      status: DeliveryStatus.Gone,
      statusCode: 410,
      nextAttemptAt: null,
    });
  });

  it('never retries a blocked destination', () => {
    expect(judgeAttempt({ kind: 'blocked', reason: 'private address' }, 1, schedule, now)).toEqual({
      outcome: DeliveryStatus.Blocked,
      status: DeliveryStatus.Blocked,
      statusCode: null,
      error: 'private address',
      nextAttemptAt: null,
    });
  });

  it('keeps a failed delivery pending with the next attempt on the schedule while attempts are left', () => {
    expect(judgeAttempt({ kind: 'response', statusCode: 503 }, 2, schedule, now)).toEqual({
      outcome: DeliveryStatus.Failed,
      status: DeliveryStatus.Pending,
      statusCode: 503,
      error: 'the receiver answered 503',
      nextAttemptAt: new Date(now + 3000),
    });
  });

  it('gives up after the last attempt', () => {
    expect(judgeAttempt({ kind: 'error', reason: 'timed out' }, 3, schedule, now)).toEqual({
      outcome: DeliveryStatus.Failed,
      status: DeliveryStatus.Failed,
      statusCode: null,
      error: 'timed out',
      nextAttemptAt: null,
    });
  });

  it('treats a redirect as a failed attempt, saying redirects are not followed', () => {
    expect(judgeAttempt({ kind: 'response', statusCode: 301 }, 1, schedule, now)).toMatchObject({
      outcome: DeliveryStatus.Failed,
      status: DeliveryStatus.Pending,
      error: 'the receiver answered 301; redirects are not followed',
    });
  });
});
