import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { WebhookSweeperService } from '../../src/modules/webhooks/worker/webhook-sweeper.service';
import { idempotencyKey, imageInputs, waitForJob } from '../support/jobs';
import { GENEROUS_CREATE_LIMITS } from '../support/limits';
import {
  bearer,
  createTestApp,
  seedAccount,
  TEST_ADMIN_TOKEN,
  type SeededAccount,
  type TestApp,
} from '../support/test-app';
import { closedPort } from '../support/loopback-http';
import { readUntil, sleep } from '../support/waiting';
import { standardHeaders, testCertificate, WebhookReceiver } from '../support/webhook-receiver';

const SETTINGS = {
  ...GENEROUS_CREATE_LIMITS,
  LIMIT_CREATES_PER_HOUR_IP: '1000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '50',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '50',
  OUTBOUND_ALLOWLIST: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1,1,1',
  // Longer than any test takes: the rotation test ends the overlap itself.
  WEBHOOK_SECRET_OVERLAP_SECONDS: '3600',
  SANDBOX_SLOW_SECONDS: '2',
};

/** A receiver on 127.0.0.1 that takes each connection and resets it at once, before TLS; and how to stop it. */
async function resettingReceiver(): Promise<{ port: number; stop: () => void }> {
  const server = createTcpServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, stop: () => server.close() };
}

/** Nothing listening on 127.0.0.1 at a port: a receiver that is down. */
async function downReceiver(): Promise<{ port: number; stop: () => void }> {
  return { port: await closedPort(), stop: () => undefined };
}

interface EventBody {
  id: string;
  type: string;
  created_at: string;
  job: { id: string; api: string; status: string; sandbox: boolean };
  result?: Record<string, unknown>;
}

describe('webhooks', () => {
  let t: TestApp;
  let account: SeededAccount;
  const admin = () => ({ Authorization: `Bearer ${TEST_ADMIN_TOKEN}` });

  beforeAll(async () => {
    const { cert } = testCertificate();
    t = await createTestApp(SETTINGS, {
      role: ProcessRole.All,
      override: (builder) => builder.overrideProvider(OUTBOUND_TLS).useValue({ ca: [cert] }),
    });
    account = await seedAccount(t);
  });
  afterAll(() => t.close());

  const createJob = (webhookUrl: string, input = imageInputs(1), key = account.sandboxKey) =>
    t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(key))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input, webhook_url: webhookUrl });

  const secretOf = async (accountId = account.accountId): Promise<string> =>
    (await t.http().get(`/admin/v1/accounts/${accountId}/webhook-secret`).set(admin()).expect(200)).body.secret;

  const deliveriesOf = async (accountId = account.accountId) =>
    (await t.http().get(`/admin/v1/accounts/${accountId}/webhook-deliveries?limit=200`).set(admin()).expect(200)).body
      .deliveries as Array<{
      event_id: string;
      status: string;
      attempts: number;
      attempt_log: Array<Record<string, unknown>>;
    }>;

  it('sends one signed event per result and then one job event, verified by a Standard Webhooks library', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const input = imageInputs(3, (i) => (i === 1 ? 'sandbox_fail_1' : `ok-${i}`));
      const created = await createJob(receiver.url, input).expect(202);
      const jobId = created.body.job.id;
      await receiver.waitFor(4);
      await sleep(300);
      expect(receiver.received).toHaveLength(4);

      const verifier = new Webhook(await secretOf());
      const events = receiver.received.map(
        (delivery) => verifier.verify(delivery.body, standardHeaders(delivery.headers)) as EventBody,
      );
      expect(new Set(events.map((event) => event.id)).size).toBe(4);
      receiver.received.forEach((delivery, i) => expect(delivery.headers['x-service-event-id']).toBe(events[i].id));

      const resultEvents = events.slice(0, 3);
      const jobEvent = events[3];
      expect(jobEvent).toMatchObject({
        type: 'image_api.job.partially_completed',
        job: { id: jobId, api: 'image_editing', status: 'partially_completed', sandbox: true },
      });
      expect(jobEvent.result).toBeUndefined();
      const failed = resultEvents.filter((event) => event.type === 'image_api.result.failed');
      const completed = resultEvents.filter((event) => event.type === 'image_api.result.completed');
      expect(failed).toHaveLength(1);
      expect(completed).toHaveLength(2);
      expect(failed[0].result).toMatchObject({
        external_id: 'sandbox_fail_1',
        status: 'failed',
        result_url: null,
        thumbnail_url: null,
        source_preview_url: null,
        error_code: 'sandbox_simulated_failure',
        error_message: expect.any(String),
      });
      for (const event of completed) {
        expect(event.result).toMatchObject({
          id: expect.any(String),
          status: 'completed',
          result_url: expect.stringContaining('/api/v1/files/'),
          source_preview_url: expect.stringContaining('/api/v1/files/'),
        });
        expect(event.result).not.toHaveProperty('error_code');
        expect(event.job.id).toBe(jobId);
        const image = await t
          .http()
          .get(new URL(String(event.result!.result_url)).pathname + new URL(String(event.result!.result_url)).search);
        expect(image.status).toBe(200);
      }
      expect(new Set(resultEvents.map((event) => event.result!.id)).size).toBe(3);

      const [recorded] = await t.dataSource.query(`SELECT count(*)::int AS n FROM webhook_events WHERE job_id = $1`, [
        jobId,
      ]);
      expect(recorded.n).toBe(4);
    } finally {
      await receiver.stop();
    }
  });

  it('lets the verifier reject a tampered body, a wrong secret and an old timestamp', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      await createJob(receiver.url).expect(202);
      const [delivery] = await receiver.waitFor(1);
      const headers = standardHeaders(delivery.headers);
      const secret = await secretOf();
      expect(() => new Webhook(secret).verify(delivery.body, headers)).not.toThrow();
      expect(() =>
        new Webhook(secret).verify(delivery.body.replace('"sandbox":true', '"sandbox":false'), headers),
      ).toThrow();
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(delivery.body, headers),
      ).toThrow();
      const old = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 3600) };
      expect(() => new Webhook(secret).verify(delivery.body, old)).toThrow();
    } finally {
      await receiver.stop();
    }
  });

  it('retries a receiver that answers 500 three times, with the same event id, and records every attempt', async () => {
    const seen = new Map<string, number>();
    const receiver = await WebhookReceiver.start((delivery) => {
      const id = String(delivery.headers['x-service-event-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return seen.get(id)! <= 3 ? 500 : 200;
    });
    try {
      const created = await createJob(receiver.url).expect(202);
      await receiver.waitFor(8, 25_000);
      await sleep(1500);
      expect(receiver.received).toHaveLength(8);
      expect([...seen.values()]).toEqual([4, 4]);
      const deliveries = (await deliveriesOf()).filter((d) => seen.has(d.event_id));
      expect(deliveries).toHaveLength(2);
      for (const delivery of deliveries) {
        expect(delivery).toMatchObject({ status: 'delivered', attempts: 4 });
        expect(delivery.attempt_log.map((a) => a.status_code)).toEqual([500, 500, 500, 200]);
        expect(delivery.attempt_log.map((a) => a.outcome)).toEqual(['failed', 'failed', 'failed', 'delivered']);
      }
      const [job] = await t.dataSource.query(`SELECT status FROM jobs WHERE id = $1`, [created.body.job.id]);
      expect(job.status).toBe('completed');
    } finally {
      await receiver.stop();
    }
  });

  it('stops at once when the receiver answers 410 Gone', async () => {
    const receiver = await WebhookReceiver.start(() => 410);
    try {
      const created = await createJob(receiver.url).expect(202);
      await waitForJob(t, created.body.job.id);
      await receiver.waitFor(2);
      await sleep(2500);
      expect(receiver.received).toHaveLength(2);
      const mine = (await deliveriesOf()).filter((d) => receiver.eventIds().includes(d.event_id));
      expect(mine.map((d) => [d.status, d.attempts])).toEqual([
        ['gone', 1],
        ['gone', 1],
      ]);
    } finally {
      await receiver.stop();
    }
  });

  it('delivers every event exactly once to a receiver that was down at first', async () => {
    const probe = await WebhookReceiver.start();
    const port = probe.port;
    await probe.stop();
    const receiver = new WebhookReceiver();
    receiver.port = port;
    const created = await createJob(`https://127.0.0.1:${port}/hooks`, imageInputs(3)).expect(202);
    await waitForJob(t, created.body.job.id);
    await sleep(1500);
    const [refused] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE d.job_id = $1 AND a.outcome = 'failed'`,
      [created.body.job.id],
    );
    expect(refused.n).toBeGreaterThan(0);
    await receiver.listen(port);
    try {
      await receiver.waitFor(4);
      await sleep(2500);
      expect(receiver.received).toHaveLength(4);
      expect(new Set(receiver.eventIds()).size).toBe(4);
    } finally {
      await receiver.stop();
    }
  });

  it.each([
    ['refuses the connection', downReceiver, 'the receiver refused the connection'],
    ['resets it', resettingReceiver, 'the receiver closed the connection before answering in full'],
  ])(
    'records what went wrong when the receiver %s, naming no address, port or error code',
    async (_what, startReceiver, expected) => {
      const receiver = await startReceiver();
      try {
        const created = await createJob(`https://127.0.0.1:${receiver.port}/hooks`).expect(202);
        const [first] = await readUntil(
          () =>
            t.dataSource.query<Array<{ outcome: string; status_code: number | null; error: string }>>(
              `SELECT a.outcome, a.status_code, a.error FROM webhook_attempts a
                 JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.job_id = $1 ORDER BY a.started_at`,
              [created.body.job.id],
            ),
          (rows) => rows.length > 0,
          'a first attempt',
        );
        expect(first).toEqual({ outcome: 'failed', status_code: null, error: expected });
      } finally {
        receiver.stop();
      }
    },
  );

  it('refuses private, metadata, local and plain-http webhook URLs at create, writing nothing', async () => {
    const [before] = await t.dataSource.query(`SELECT count(*)::int AS n FROM jobs`);
    for (const url of [
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest',
      'https://[::1]:8443/x',
      'https://localhost/x',
      'http://example.com/hook',
    ]) {
      const res = await createJob(url).expect(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: 'webhook_url' })]),
      );
    }
    const [after] = await t.dataSource.query(`SELECT count(*)::int AS n FROM jobs`);
    expect(after.n).toBe(before.n);
  });

  it('does not follow a redirect, and records a blocked attempt for a destination refused at send time', async () => {
    const target = await WebhookReceiver.start();
    const redirecting = await WebhookReceiver.start(() => ({ status: 302, headers: { location: target.url } }));
    try {
      const redirected = await createJob(redirecting.url).expect(202);
      await redirecting.waitFor(2);
      await sleep(300);
      const [attempt] = await t.dataSource.query(
        `SELECT a.outcome, a.status_code, a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = ` +
          `a.delivery_id
          WHERE d.job_id = $1 ORDER BY a.started_at LIMIT 1`,
        [redirected.body.job.id],
      );
      expect(attempt).toMatchObject({
        outcome: 'failed',
        status_code: 302,
        error: expect.stringContaining('redirects are not followed'),
      });
      expect(target.received).toHaveLength(0);

      // The URL was allowed when the job was created; by the time it is sent to it is not.
      const slow = await createJob(
        target.url,
        imageInputs(1, () => 'sandbox_slow_1'),
      ).expect(202);
      await t.dataSource.query(`UPDATE jobs SET webhook_url = 'https://10.255.0.1/hook' WHERE id = $1`, [
        slow.body.job.id,
      ]);
      await waitForJob(t, slow.body.job.id);
      await sleep(500);
      const blocked = await t.dataSource.query(
        `SELECT d.status, a.outcome, a.error FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
          WHERE d.job_id = $1`,
        [slow.body.job.id],
      );
      expect(blocked).toHaveLength(2);
      for (const row of blocked)
        expect(row).toMatchObject({ status: 'blocked', outcome: 'blocked', error: expect.stringContaining('private') });
      expect(target.received).toHaveLength(0);
    } finally {
      await target.stop();
      await redirecting.stop();
    }
  });

  it('signs with both secrets during a rotation overlap, and with the new one only after it', async () => {
    const other = await seedAccount(t, { name: 'Rotating account' });
    const receiver = await WebhookReceiver.start();
    try {
      const oldSecret = await secretOf(other.accountId);
      const rotated = await t
        .http()
        .post(`/admin/v1/accounts/${other.accountId}/webhook-secret`)
        .set(admin())
        .expect(200);
      const newSecret = rotated.body.secret;
      expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(await secretOf(other.accountId)).toBe(newSecret);

      await createJob(receiver.url, imageInputs(1), other.sandboxKey).expect(202);
      const [during] = await receiver.waitFor(1);
      expect(String(during.headers['x-service-signature']).split(' ')).toHaveLength(2);
      expect(() => new Webhook(oldSecret).verify(during.body, standardHeaders(during.headers))).not.toThrow();
      expect(() => new Webhook(newSecret).verify(during.body, standardHeaders(during.headers))).not.toThrow();

      // The overlap's end brought forward to now: what a delivery an hour later sees.
      const ended = await t.dataSource.query(
        `UPDATE webhook_secrets SET expires_at = now() WHERE account_id = $1 AND expires_at > now() RETURNING id`,
        [other.accountId],
      );
      expect(ended[0]).toHaveLength(1);
      const before = receiver.received.length;
      await createJob(receiver.url, imageInputs(1), other.sandboxKey).expect(202);
      const after = (await receiver.waitFor(before + 1))[before];
      expect(String(after.headers['x-service-signature']).split(' ')).toHaveLength(1);
      expect(() => new Webhook(newSecret).verify(after.body, standardHeaders(after.headers))).not.toThrow();
      expect(() => new Webhook(oldSecret).verify(after.body, standardHeaders(after.headers))).toThrow();
    } finally {
      await receiver.stop();
    }
  });

  it(
    'redelivers an event with the same id and body as ' + 'a new delivery, and answers 404 for unknown events',
    async () => {
      const receiver = await WebhookReceiver.start();
      try {
        await createJob(receiver.url).expect(202);
        const [first] = await receiver.waitFor(1);
        const eventId = String(first.headers['x-service-event-id']);
        const res = await t.http().post(`/admin/v1/webhook-events/${eventId}/redeliver`).set(admin()).expect(202);
        expect(res.body.delivery).toMatchObject({ event_id: eventId, status: 'pending', attempts: 0 });
        await receiver.waitFor(3);
        const again = receiver.received.filter((d) => d.headers['x-service-event-id'] === eventId);
        expect(again).toHaveLength(2);
        expect(again[1].body).toBe(again[0].body);
        await t
          .http()
          .post('/admin/v1/webhook-events/7d1c3a8e-4f4f-4d55-9a43-0a1d1f1e2b3c/redeliver')
          .set(admin())
          .expect(404);
        await t.http().post('/admin/v1/webhook-events/not-a-uuid/redeliver').set(admin()).expect(400);
        await t.http().post(`/admin/v1/webhook-events/${eventId}/redeliver`).expect(401);
        const unknownAccount = '0f2c9f6e-8a4b-4c1d-9e3f-5a6b7c8d9e0f';
        await t.http().get(`/admin/v1/accounts/${unknownAccount}/webhook-secret`).set(admin()).expect(404);
        await t.http().post(`/admin/v1/accounts/${unknownAccount}/webhook-secret`).set(admin()).expect(404);
        await t.http().get(`/admin/v1/accounts/${unknownAccount}/webhook-deliveries`).set(admin()).expect(404);
        await t
          .http()
          .get(`/admin/v1/accounts/${account.accountId}/webhook-deliveries?limit=0`)
          .set(admin())
          .expect(400);
      } finally {
        await receiver.stop();
      }
    },
  );

  it('records events of jobs without a webhook_url, with no delivery', async () => {
    const res = await t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.sandboxKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: imageInputs(2) })
      .expect(202);
    await waitForJob(t, res.body.job.id);
    const rows = await t.dataSource.query(
      `SELECT e.type, count(d.id)::int AS deliveries FROM webhook_events e LEFT JOIN webhook_deliveries d ON ` +
        `d.event_id = e.id
        WHERE e.job_id = $1 GROUP BY e.id, e.type, e.sequence ORDER BY e.sequence`,
      [res.body.job.id],
    );
    expect(rows).toEqual([
      { type: 'image_api.result.completed', deliveries: 0 },
      { type: 'image_api.result.completed', deliveries: 0 },
      { type: 'image_api.job.completed', deliveries: 0 },
    ]);
  });
});

describe('webhook delivery with a receiver that hangs', () => {
  let t: TestApp;

  beforeAll(async () => {
    const { cert } = testCertificate();
    t = await createTestApp(
      {
        ...SETTINGS,
        WORKER_CONCURRENCY_WEBHOOKS: '4',
        WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: '2',
        // Longer than the test: the hanging receiver's deliveries hold their slots throughout.
        WEBHOOK_TIMEOUT_SECONDS: '120',
      },
      { role: ProcessRole.All, override: (builder) => builder.overrideProvider(OUTBOUND_TLS).useValue({ ca: [cert] }) },
    );
  });
  afterAll(() => t.close());

  it('delays neither other accounts’ deliveries nor the job pipeline', async () => {
    const hanging = await WebhookReceiver.start(() => ({ status: 200, delayMs: 600_000 }));
    const healthy = await WebhookReceiver.start();
    try {
      const [slowAccount, otherAccount] = [await seedAccount(t), await seedAccount(t)];
      const create = (key: string, url: string, count: number) =>
        t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(key))
          .set('Idempotency-Key', idempotencyKey())
          .send({ input: imageInputs(count), webhook_url: url })
          .expect(202);
      const stuck = await create(slowAccount.sandboxKey, hanging.url, 8);
      await waitForJob(t, stuck.body.job.id);
      await hanging.waitFor(1);

      await create(otherAccount.sandboxKey, healthy.url, 1);
      await healthy.waitFor(2);
      // Delivered while the hanging receiver still held every delivery it had been sent, none
      // answered or timed out: the other account's took free slots, not slots the hanging ones
      // gave up. The hanging receiver never had more than its account's share of them.
      expect(hanging.received.length).toBeLessThanOrEqual(2);
      expect(hanging.openDeliveries).toBe(hanging.received.length);
      const [job] = await t.dataSource.query(`SELECT status FROM jobs WHERE id = $1`, [stuck.body.job.id]);
      expect(job.status).toBe('completed');
    } finally {
      await hanging.stop();
      await healthy.stop();
    }
  });
});

describe('webhook retention', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ ...SETTINGS, WEBHOOK_RETENTION_DAYS: '30' }, { role: ProcessRole.All });
  });
  afterAll(() => t.close());

  it(
    'deletes events past the retention period with their ' + 'deliveries and attempts, but never a pending one',
    async () => {
      const account = await seedAccount(t);
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.sandboxKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(2) })
        .expect(202);
      const jobId = res.body.job.id;
      await waitForJob(t, jobId);
      const events: Array<{ id: string }> = await t.dataSource.query(
        `SELECT id FROM webhook_events WHERE job_id = $1 ORDER BY sequence`,
        [jobId],
      );
      expect(events).toHaveLength(3);
      const [old, pending, fresh] = events.map((event) => event.id);
      await t.dataSource.query(`UPDATE webhook_events SET created_at = now() - interval '31 days' WHERE id = ANY($1)`, [
        [old, pending],
      ]);
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (id, event_id, account_id, job_id, url, status, attempts, next_attempt_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'https://hooks.example.com/x', 'pending', 3, now() + interval '1 hour')`,
        [pending, account.accountId, jobId],
      );
      const { purged } = await t.app.get(WebhookSweeperService).sweep();
      expect(purged).toBe(1);
      const left: Array<{ id: string }> = await t.dataSource.query(`SELECT id FROM webhook_events WHERE job_id = $1`, [
        jobId,
      ]);
      expect(left.map((event) => event.id).sort()).toEqual([pending, fresh].sort());
    },
  );
});
