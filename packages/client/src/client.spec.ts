import { ImageJobsClient } from './client';
import { ImageJobsApiError, ImageJobsNetworkError } from './errors';

interface Sent {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

/** A fetch that answers from a script, one answer per call, and records what it was sent. */
function scriptedFetch(answers: Array<(() => Response) | Error>) {
  const sent: Sent[] = [];
  const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    sent.push({
      url: input instanceof Request ? input.url : String(input),
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: init?.body,
    });
    const next = answers.shift();
    if (!next) throw new Error('no answer scripted');
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next());
  };
  return { fetch, sent };
}

const json =
  (status: number, body: object, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const created = json(202, { job: { id: 'job-1', status: 'queued' }, remaining_paid_credits: 9, request_id: 'r' });
const overloaded = json(
  503,
  { error: { code: 'capacity_unavailable', message: 'Full.' }, request_id: 'r' },
  {
    'Retry-After': '0',
  },
);

describe(ImageJobsClient.name, () => {
  it('sends one Idempotency-Key with a create and the same one with each retry', async () => {
    const { fetch, sent } = scriptedFetch([overloaded, new TypeError('fetch failed'), created]);
    const client = new ImageJobsClient({ apiKey: 'sk_test', baseUrl: 'http://service.test/', fetch });
    const answer = await client.editImage({ input: [{ image_url: 'https://images.example.com/a.jpg' }] });
    expect(answer.job.id).toBe('job-1');
    const keys = sent.map((request) => request.headers.get('idempotency-key'));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[A-Za-z0-9._:-]{8,160}$/);
    expect(sent[0]).toMatchObject({ url: 'http://service.test/api/v1/image/edit', method: 'POST' });
    expect(sent[0].headers.get('authorization')).toBe('Bearer sk_test');
    expect(JSON.parse(sent[0].body as string)).toEqual({ input: [{ image_url: 'https://images.example.com/a.jpg' }] });
  });

  it('uses the key it is given, and hands it back on the error when the retries run out', async () => {
    const { fetch, sent } = scriptedFetch([overloaded, overloaded]);
    const client = new ImageJobsClient({ apiKey: 'sk_test', baseUrl: 'http://service.test', fetch, maxRetries: 1 });
    const error = await client
      .removeBackground({ input: [{ image_url: 'https://images.example.com/a.jpg' }] }, { idempotencyKey: 'order-7' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ImageJobsApiError);
    expect(error).toMatchObject({ status: 503, code: 'capacity_unavailable', idempotencyKey: 'order-7' });
    expect(sent.map((request) => request.headers.get('idempotency-key'))).toEqual(['order-7', 'order-7']);
  });

  it('never repeats a refused request, nor waits out a Retry-After longer than allowed', async () => {
    const invalid = json(400, { error: { code: 'invalid_request', message: 'Bad.' }, request_id: 'r' });
    const limited = json(
      429,
      { error: { code: 'rate_limit_exceeded', message: 'Later.' }, request_id: 'r' },
      {
        'Retry-After': '3600',
      },
    );
    const { fetch, sent } = scriptedFetch([invalid, limited]);
    const client = new ImageJobsClient({ apiKey: 'sk_test', baseUrl: 'http://service.test', fetch });
    await expect(client.getJob('job-1')).rejects.toMatchObject({ status: 400 });
    await expect(client.getJob('job-1')).rejects.toMatchObject({ status: 429, retryAfterSeconds: 3600 });
    expect(sent).toHaveLength(2);
  });

  it('uploads bytes with their sniffed type and does not repeat an upload after a network failure', async () => {
    const upload = { id: 'upl_1', image_url: 'upload://upl_1', content_type: 'image/png' };
    const { fetch, sent } = scriptedFetch([json(201, { upload, request_id: 'r' }), new TypeError('fetch failed')]);
    const client = new ImageJobsClient({ apiKey: 'sk_test', baseUrl: 'http://service.test', fetch });
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    await expect(client.upload(png)).resolves.toMatchObject({ id: 'upl_1', image_url: 'upload://upl_1' });
    expect(sent[0].url).toBe('http://service.test/api/v1/uploads');
    expect(sent[0].headers.get('content-type')).toBe('image/png');
    expect(sent[0].body).toBe(png);
    await expect(client.upload(new Blob([png]), { contentType: 'image/png' })).rejects.toBeInstanceOf(
      ImageJobsNetworkError,
    );
    expect(sent).toHaveLength(2);
    await expect(client.upload(Buffer.from('plain text'))).rejects.toThrow(/contentType/);
  });

  it('sends an upload Idempotency-Key and, with one, repeats the upload after a network failure', async () => {
    const upload = { id: 'upl_2', image_url: 'upload://upl_2', content_type: 'image/png' };
    const { fetch, sent } = scriptedFetch([new TypeError('fetch failed'), json(200, { upload, request_id: 'r' })]);
    const client = new ImageJobsClient({ apiKey: 'sk_test', baseUrl: 'http://service.test', fetch });
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    await expect(client.upload(png, { idempotencyKey: 'shoe-0001' })).resolves.toMatchObject({ id: 'upl_2' });
    expect(sent.map((request) => request.headers.get('idempotency-key'))).toEqual(['shoe-0001', 'shoe-0001']);
  });

  it('downloads a signed URL without the API key, and records the rate limit of each answer', async () => {
    const image = () => new Response(Buffer.from([1, 2, 3]), { status: 200 });
    const listed = json(
      200,
      { jobs: [], next_cursor: null, request_id: 'r' },
      {
        'RateLimit-Limit': '120',
        'RateLimit-Remaining': '118',
        'RateLimit-Reset': '3500',
        'X-Request-Id': 'req-9',
      },
    );
    const { fetch, sent } = scriptedFetch([image, listed]);
    const client = new ImageJobsClient({ apiKey: 'sk_test', baseUrl: 'http://service.test', fetch });
    expect(await client.download('http://files.test/api/v1/files/a.png?signature=s')).toEqual(Buffer.from([1, 2, 3]));
    expect(sent[0].headers.get('authorization')).toBeNull();
    await client.listJobs({ status: 'completed', limit: 5 });
    expect(sent[1].url).toBe('http://service.test/api/v1/jobs?status=completed&limit=5');
    expect(client.lastRateLimit).toEqual({ limit: 120, remaining: 118, resetSeconds: 3500 });
    expect(client.lastRequestId).toBe('req-9');
  });
});
