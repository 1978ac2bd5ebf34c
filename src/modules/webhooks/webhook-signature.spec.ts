import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook } from './webhook-signature';

describe(signWebhook.name, () => {
  const body = JSON.stringify({ id: 'e1', type: 'image_api.job.completed' });
  const now = () => Math.floor(Date.now() / 1000);
  const headersOf = (signature: string, timestamp: number) => ({
    'webhook-id': 'e1',
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  });

  it('makes secrets of the whsec_ form with 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('produces a signature the Standard Webhooks library accepts for every secret it was made with', () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const timestamp = now();
    const signature = signWebhook([a, b], 'e1', timestamp, body);
    expect(signature.split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(body, headersOf(signature, timestamp))).toEqual(JSON.parse(body));
    expect(new Webhook(b).verify(body, headersOf(signature, timestamp))).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headersOf(signature, timestamp))).toThrow();
  });

  it('covers the id, the timestamp and the exact body bytes', () => {
    const secret = generateWebhookSecret();
    const timestamp = now();
    const signature = signWebhook([secret], 'e1', timestamp, body);
    expect(() => new Webhook(secret).verify(`${body} `, headersOf(signature, timestamp))).toThrow();
    expect(() =>
      new Webhook(secret).verify(body, { ...headersOf(signature, timestamp), 'webhook-id': 'e2' }),
    ).toThrow();
    expect(() => new Webhook(secret).verify(body, headersOf(signature, timestamp + 1))).toThrow();
  });
});
