import { createHash, randomBytes } from 'node:crypto';
import { QueryFailedError } from 'typeorm';
import { WebhookSecretsRepository } from '../../src/modules/webhooks/webhook-secrets.repository';
import { capturedLog } from '../support/captured-log';
import { createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/** What `work` rejected with, which must be a failed query. */
async function queryFailure(work: Promise<unknown>): Promise<QueryFailedError> {
  const error: unknown = await work.then(
    () => new Error('the statement succeeded'),
    (reason: unknown) => reason,
  );
  if (error instanceof QueryFailedError) return error;
  throw error;
}

describe('a failed query in the log, against the real PostgreSQL', () => {
  let t: TestApp;
  let account: SeededAccount;

  beforeAll(async () => {
    t = await createTestApp();
    account = await seedAccount(t);
  });
  afterAll(() => t.close());

  it("keeps the constraint and table of a duplicate webhook secret, and drops the statement's parameters", async () => {
    const secrets = t.app.get(WebhookSecretsRepository, { strict: false });
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    await secrets.insertCurrent(t.dataSource.manager, account.accountId, `whsec_${randomBytes(32).toString('base64')}`);
    const error = await queryFailure(secrets.insertCurrent(t.dataSource.manager, account.accountId, secret));
    // The failure does carry the secret: a serializer that wrote every property would log it.
    expect(error.parameters).toContain(secret);

    const log = capturedLog();
    log.logger.error({ err: error, account_id: account.accountId }, 'could not rotate the webhook secret');
    const [line] = log.lines();
    expect(line).not.toContain(secret);
    expect(line).not.toContain('INSERT INTO');
    expect(JSON.parse(line)).toMatchObject({
      msg: 'could not rotate the webhook secret',
      err: {
        type: 'QueryFailedError',
        message: 'duplicate key value violates unique constraint "webhook_secrets_current_idx"',
        code: '23505',
        constraint: 'webhook_secrets_current_idx',
        table: 'webhook_secrets',
        stack: expect.stringContaining('QueryFailedError: duplicate key value'),
      },
    });
  });

  it("drops the driver's detail, which names the duplicated value (an API key's hash)", async () => {
    const hash = createHash('sha256')
      .update(`sk_live_${randomBytes(24).toString('hex')}`)
      .digest('hex');
    const insertKey = () =>
      t.dataSource.query(
        `INSERT INTO api_keys (account_id, environment, prefix, secret_hash) VALUES ($1, 'live', 'sk_live_x', $2)`,
        [account.accountId, hash],
      );
    await insertKey();
    const error = await queryFailure(insertKey());
    expect((error.driverError as { detail?: string }).detail).toContain(hash);

    const log = capturedLog();
    log.logger.error({ err: error }, 'could not issue a key');
    expect(log.text()).not.toContain(hash);
    expect(JSON.parse(log.lines()[0])).toMatchObject({
      err: { code: '23505', constraint: 'api_keys_secret_hash_key', table: 'api_keys' },
    });
  });

  it('says what PostgreSQL refused without the value it quotes (a signed URL put where an id goes)', async () => {
    const signedUrl = `https://results.example.com/r/1.png?signature=${randomBytes(16).toString('hex')}`;
    const error = await queryFailure(t.dataSource.query(`SELECT id FROM jobs WHERE id = $1`, [signedUrl]));
    expect(error.message).toContain(signedUrl);

    const log = capturedLog();
    log.logger.error({ err: error }, 'could not read the job');
    expect(log.text()).not.toContain(signedUrl);
    expect(JSON.parse(log.lines()[0])).toMatchObject({
      err: {
        message: 'invalid input syntax for type uuid: "[the value is left out]"',
        code: '22P02',
        stack: expect.stringMatching(
          /^QueryFailedError: invalid input syntax for type uuid: "\[the value is left out\]"\n/,
        ),
      },
    });
  });
});
