import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const SECRET = 'whsec_' + Buffer.alloc(32, 3).toString('base64');

/** A delivery signed by the Standard Webhooks reference library, under the service's header names. */
function delivery(body: string, eventId = 'evt-1', at = new Date('2026-07-01T12:00:00Z')) {
  const signature = new Webhook(SECRET).sign(eventId, at, body);
  return {
    payload: body,
    headers: {
      'X-Service-Event-Id': eventId,
      'X-Service-Timestamp': String(Math.floor(at.getTime() / 1000)),
      'X-Service-Signature': signature,
    },
    now: at.getTime() + 5000,
  };
}

const EVENT = JSON.stringify({
  id: 'evt-1',
  type: 'image_api.job.completed',
  created_at: '2026-07-01T12:00:00.000Z',
  job: { id: 'job-1', api: 'image_editing', status: 'completed', sandbox: true },
});

const reasonOf = (verify: () => unknown): string => {
  try {
    verify();
    return 'accepted';
  } catch (error) {
    return error instanceof WebhookVerificationError ? error.reason : 'other error';
  }
};

describe(verifyWebhook.name, () => {
  it('accepts what the Standard Webhooks library signs, with headers in any case', () => {
    expect(verifyWebhook({ ...delivery(EVENT), secret: SECRET }).job.status).toBe('completed');
  });

  it('refuses a changed body, a payload that is not the named event, and a signature from another secret', () => {
    const changed = { ...delivery(EVENT), payload: EVENT.replace('completed', 'failed') };
    const otherEvent = delivery(EVENT, 'evt-2');
    const otherSecret = 'whsec_' + Buffer.alloc(32, 4).toString('base64');
    expect(reasonOf(() => verifyWebhook({ ...changed, secret: SECRET }))).toBe('invalid_signature');
    expect(reasonOf(() => verifyWebhook({ ...otherEvent, secret: SECRET }))).toBe('invalid_payload');
    expect(reasonOf(() => verifyWebhook({ ...delivery(EVENT), secret: otherSecret }))).toBe('invalid_signature');
    expect(reasonOf(() => verifyWebhook({ ...delivery('not json', 'evt-1'), secret: SECRET }))).toBe('invalid_payload');
  });

  it('refuses a timestamp outside the tolerance either way, or not in seconds', () => {
    const signed = delivery(EVENT);
    const at = Number(signed.headers['X-Service-Timestamp']) * 1000;
    expect(reasonOf(() => verifyWebhook({ ...signed, secret: SECRET, now: at + 301_000 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(reasonOf(() => verifyWebhook({ ...signed, secret: SECRET, now: at - 301_000 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(
      reasonOf(() => verifyWebhook({ ...signed, secret: SECRET, now: at + 3_600_000, toleranceSeconds: 7200 })),
    ).toBe('accepted');
    const headers = { ...signed.headers, 'X-Service-Timestamp': '2026-07-01T12:00:00Z' };
    expect(reasonOf(() => verifyWebhook({ ...signed, headers, secret: SECRET }))).toBe('invalid_timestamp');
  });
});
