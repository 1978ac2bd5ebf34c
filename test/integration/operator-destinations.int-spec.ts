import { ProcessRole } from '../../src/core/bootstrap/role';
import { OUTBOUND_LOOKUP } from '../../src/core/outbound/outbound.module';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { fromFixture, paint } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { imageInputs, jobsClient, type ResultBody } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { resolveToLoopback, resolvingExampleTest } from '../support/outbound-with-resolver';
import { createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { readUntil } from '../support/waiting';

/**
 * The segmenter is an operator destination at a private address (a name that resolves to
 * 127.0.0.1) that OUTBOUND_ALLOWLIST does not name; the allowlist opens only 127.0.0.2, where
 * the customer's sources are. Customer URLs naming the segmenter's host and port, directly or by
 * a redirect, stay refused.
 */
describe('operator destinations and customer URLs', () => {
  let t: TestApp;
  let account: SeededAccount;
  let sources: ImageSourceServer;
  let segmenter: ImageSourceServer;
  const service = new FakeSegmentationService();
  let segmenterHost: string;

  beforeAll(async () => {
    sources = await ImageSourceServer.start(['127.0.0.2']);
    sources.serve(
      '/photo.png',
      await fromFixture(paint(96, 64, (x) => (x > 30 && x < 66 ? [200, 40, 40] : [90, 100, 120])))
        .png()
        .toBuffer(),
      {
        contentType: 'image/png',
      },
    );
    segmenter = await ImageSourceServer.start(['127.0.0.1']);
    segmenter.route('/segment', (req, res) => {
      // A customer's GET would carry no image: answered plainly, and counted by the server either way.
      if (req.method !== 'POST') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('internal');
      service.handle(req, res);
    });
    segmenterHost = `segmenter.example.test:${segmenter.port}`;
    sources.redirect('/to-segmenter', `http://${segmenterHost}/segment`);
    t = await createTestApp(
      {
        ...GENEROUS_LIMITS,
        SEGMENTER: 'remote',
        SEGMENTER_URL: `http://${segmenterHost}/segment`,
        OUTBOUND_ALLOWLIST: '127.0.0.2',
        RESULT_ATTEMPTS: '1',
      },
      {
        role: ProcessRole.All,
        override: (builder) =>
          builder.overrideProvider(OUTBOUND_LOOKUP).useValue(resolvingExampleTest(resolveToLoopback)),
      },
    );
    account = await seedAccount(t, { credits: 50 });
  });
  afterAll(async () => {
    await t.close();
    await sources.stop();
    await segmenter.stop();
  });

  const live = () => jobsClient(t, () => account.liveKey);
  const sandbox = () => jobsClient(t, () => account.sandboxKey);

  /** The one result of a background removal of `body`, once settled. */
  async function removeBackground(body: object): Promise<ResultBody> {
    const client = live();
    const res = await client.create('/remove-background', body);
    expect(res.status).toBe(202);
    const [result] = await client.results(res.body.job.id);
    return result;
  }

  it('reaches the segmenter at its configured URL although OUTBOUND_ALLOWLIST does not name it', async () => {
    const calls = service.received.length;
    const result = await removeBackground({ input: [{ image_url: sources.url('/photo.png', '127.0.0.2') }] });
    expect(result).toMatchObject({ status: 'completed', error_code: null });
    expect(service.received.length - calls).toBe(1);
  });

  it("refuses a source naming the segmenter's host and port, naming only the host the customer gave", async () => {
    const before = segmenter.requests('/segment');
    const result = await removeBackground({ input: [{ image_url: `http://${segmenterHost}/segment` }] });
    expect(result).toMatchObject({
      status: 'failed',
      error_code: 'source_blocked',
      error_message: 'The source host segmenter.example.test resolves to an address that is not allowed.',
      credits_used: 0,
    });
    expect(segmenter.requests('/segment')).toBe(before);
  });

  it("refuses a redirect to the segmenter's host and port, naming neither", async () => {
    const before = segmenter.requests('/segment');
    const result = await removeBackground({ input: [{ image_url: sources.url('/to-segmenter', '127.0.0.2') }] });
    expect(result).toMatchObject({
      status: 'failed',
      error_code: 'source_blocked',
      error_message: 'The source redirected to an address that is not allowed.',
    });
    expect(segmenter.requests('/segment')).toBe(before);
  });

  it("refuses a background photo naming the segmenter's host and port", async () => {
    const before = segmenter.requests('/segment');
    const result = await removeBackground({
      input: [{ image_url: sources.url('/photo.png', '127.0.0.2') }],
      background: { type: 'image', image_url: `http://${segmenterHost}/segment` },
    });
    expect(result).toMatchObject({
      status: 'failed',
      error_code: 'background_blocked',
      error_message:
        'The background image: The source host segmenter.example.test resolves to an address that is not allowed.',
    });
    expect(segmenter.requests('/segment')).toBe(before);
  });

  it("refuses at submission a source or webhook URL giving the segmenter's address and port literally", async () => {
    const literal = `127.0.0.1:${segmenter.port}`;
    const res = await live().create('/remove-background', {
      input: [{ image_url: `http://${literal}/segment` }],
      webhook_url: `https://${literal}/segment`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toEqual([
      { path: 'input[0].image_url', message: '127.0.0.1 is a loopback address, which outbound requests may not reach' },
      { path: 'webhook_url', message: '127.0.0.1 is a loopback address, which outbound requests may not reach' },
    ]);
  });

  it("never posts a webhook to the segmenter's host and port; the attempt names only the host given", async () => {
    const before = segmenter.requests('/segment');
    const res = await sandbox().create('/image/edit', {
      input: imageInputs(1),
      webhook_url: `https://${segmenterHost}/hook`,
    });
    expect(res.status).toBe(202);
    const attempts = await readUntil(
      () =>
        t.dataSource.query<Array<{ status: string; outcome: string; error: string }>>(
          `SELECT d.status, a.outcome, a.error FROM webhook_deliveries d
             JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.job_id = $1`,
          [res.body.job.id],
        ),
      (rows) => rows.length >= 2,
      'the attempts of both events',
    );
    for (const attempt of attempts) {
      expect(attempt).toEqual({
        status: 'blocked',
        outcome: 'blocked',
        error: 'the webhook host segmenter.example.test resolves to an address that is not allowed',
      });
    }
    expect(segmenter.requests('/hook') + segmenter.requests('/segment')).toBe(before);
  });
});
