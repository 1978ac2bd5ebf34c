import { ProcessRole } from '../../src/core/bootstrap/role';
import { decodeRgba, fromFixture, paint } from '../support/image-fixtures';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { ImageSourceServer } from '../support/image-source-server';
import { creditTotals, idempotencyKey, jobsClient, waitForJob } from '../support/jobs';
import { closedPort } from '../support/loopback-http';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/** A 320 x 240 photo: an orange disc of radius 70 centred at (160, 120) on flat blue-grey. */
const DISC = { cx: 160, cy: 120, r: 70 };
const inDisc = (x: number, y: number) => (x - DISC.cx) ** 2 + (y - DISC.cy) ** 2 <= DISC.r ** 2;
const photo = () => paint(320, 240, (x, y) => (inDisc(x, y) ? [240, 140, 30] : [90, 100, 120]));

/**
 * The service listens on 127.0.0.1 and the photos are served on 127.0.0.2, the one address
 * OUTBOUND_ALLOWLIST opens: the segmenter is reached by its configured URL alone.
 */
describe('a remote segmenter behind the Segmenter interface, over loopback HTTP', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  const service = new FakeSegmentationService();
  const disc = () => server.url('/disc.jpg', '127.0.0.2');

  beforeAll(async () => {
    server = await ImageSourceServer.start(['127.0.0.1', '127.0.0.2']);
    server.serve('/disc.jpg', await fromFixture(photo()).jpeg({ quality: 95 }).toBuffer(), {
      contentType: 'image/jpeg',
    });
    server.route('/segment', service.handle);
    t = await createTestApp(
      {
        SEGMENTER: 'remote',
        SEGMENTER_URL: server.url('/segment'),
        OUTBOUND_ALLOWLIST: '127.0.0.2',
        RESULT_ATTEMPTS: '2',
        LIMIT_ACTIVE_JOBS_PER_KEY: '10',
        LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '10',
      },
      { role: ProcessRole.All },
    );
    account = await seedAccount(t, { credits: 20 });
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  const removeBackground = (body: object) =>
    t
      .http()
      .post('/api/v1/remove-background')
      .set(bearer(account.liveKey))
      .set('Idempotency-Key', idempotencyKey())
      .send(body);
  const readResults = async (jobId: string) => {
    await waitForJob(t, jobId, undefined, 30_000);
    return (await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(account.liveKey)).expect(200)).body
      .results as Array<{
      status: string;
      error_code: string | null;
      result_url: string | null;
    }>;
  };

  it(
    "cuts out with the service's mask: it received the " + "photo as PNG, and the result's alpha is its answer",
    async () => {
      service.failWith = null;
      const res = await removeBackground({ input: [{ image_url: disc() }] }).expect(202);
      const [result] = await readResults(res.body.job.id);
      expect(result.status).toBe('completed');
      expect(service.received.at(-1)).toEqual({ contentType: 'image/png', width: 320, height: 240 });
      const url = new URL(result.result_url as string);
      const output = await decodeRgba(
        (
          await t
            .http()
            .get(url.pathname + url.search)
            .buffer(true)
            .expect(200)
        ).body,
      );
      let both = 0;
      let either = 0;
      for (let y = 0; y < 240; y++) {
        for (let x = 0; x < 320; x++) {
          const opaque = output.pixel(x, y)[3] >= 128;
          if (opaque && inDisc(x, y)) both++;
          if (opaque || inDisc(x, y)) either++;
        }
      }
      expect(both / either).toBeGreaterThan(0.97);
      expect(output.pixel(5, 5)[3]).toBe(0);
      expect(output.pixel(DISC.cx, DISC.cy)).toEqual(
        [240, 140, 30, 255].map((value, i) => (i === 3 ? 255 : expect.closeTo(value, -1))),
      );
    },
  );

  it("refuses a customer's source or webhook URL naming the segmenter's address and port", async () => {
    const res = await removeBackground({
      input: [{ image_url: server.url('/segment') }],
      webhook_url: server.url('/segment').replace('http:', 'https:'),
    }).expect(400);
    expect(res.body.error.details.errors).toEqual([
      { path: 'input[0].image_url', message: '127.0.0.1 is a loopback address, which outbound requests may not reach' },
      { path: 'webhook_url', message: '127.0.0.1 is a loopback address, which outbound requests may not reach' },
    ]);
  });

  it(
    'fails with provider_error when the service keeps failing, ' +
      'retried within RESULT_ATTEMPTS, releasing the credits',
    async () => {
      service.failWith = 503;
      const before = await creditTotals(t, account.accountId);
      const calls = service.received.length;
      const res = await removeBackground({ input: [{ image_url: disc() }] }).expect(202);
      const [result] = await readResults(res.body.job.id);
      expect(result).toMatchObject({ status: 'failed', error_code: 'provider_error', result_url: null });
      expect(service.received.length - calls).toBe(2);
      expect(await creditTotals(t, account.accountId)).toEqual(before);
    },
  );

  it('does not retry a service that refuses the request (4xx)', async () => {
    service.failWith = 400;
    const calls = service.received.length;
    const res = await removeBackground({ input: [{ image_url: disc() }] }).expect(202);
    const [result] = await readResults(res.body.job.id);
    expect(result).toMatchObject({ status: 'failed', error_code: 'provider_error' });
    expect(service.received.length - calls).toBe(1);
  });

  it("fails a service that answers garbage with a message that says so, without the image library's text", async () => {
    service.failWith = null;
    service.answerWith = Buffer.from('<html>upstream proxy error</html>');
    try {
      const calls = service.received.length;
      const res = await removeBackground({ input: [{ image_url: disc() }] }).expect(202);
      const [result] = await readResults(res.body.job.id);
      expect(result).toMatchObject({
        status: 'failed',
        error_code: 'provider_error',
        error_message: 'The segmentation service answered something that is not a mask image.',
      });
      // Not retried: the same service would answer the same garbage.
      expect(service.received.length - calls).toBe(1);
    } finally {
      service.answerWith = null;
    }
  });
});

describe('a remote segmenter that is down', () => {
  let t: TestApp;
  let sources: ImageSourceServer;
  let account: SeededAccount;
  let segmenterPort: number;

  beforeAll(async () => {
    sources = await ImageSourceServer.start(['127.0.0.2']);
    sources.serve('/disc.jpg', await fromFixture(photo()).jpeg({ quality: 95 }).toBuffer(), {
      contentType: 'image/jpeg',
    });
    segmenterPort = await closedPort();
    t = await createTestApp(
      {
        SEGMENTER: 'remote',
        SEGMENTER_URL: `http://127.0.0.1:${segmenterPort}/segment`,
        OUTBOUND_ALLOWLIST: '127.0.0.2',
        RESULT_ATTEMPTS: '1',
      },
      { role: ProcessRole.All },
    );
    account = await seedAccount(t, { credits: 5 });
  });
  afterAll(async () => {
    await t.close();
    await sources.stop();
  });

  it('fails the result saying the service refused the connection, naming no host, port or error code', async () => {
    const client = jobsClient(t, () => account.liveKey);
    const res = await client.create('/remove-background', {
      input: [{ image_url: sources.url('/disc.jpg', '127.0.0.2') }],
    });
    expect(res.status).toBe(202);
    const [result] = await client.results(res.body.job.id);
    expect(result).toMatchObject({
      status: 'failed',
      error_code: 'provider_error',
      error_message: 'The segmentation service refused the connection.',
      credits_used: 0,
    });
    expect(result.error_message).not.toContain(String(segmenterPort));
  });
});
