import { ProcessRole } from '../../src/core/bootstrap/role';
import { runCli } from '../support/command-line';
import { idempotencyKey, waitForJob } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { freePort } from '../support/processes';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

describe('image-jobs review', () => {
  let t: TestApp;
  let base: string;
  let account: SeededAccount;
  /** The flagged results, newest completed first. */
  let flagged: Array<{ id: string; externalId: string }>;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp({ ...GENEROUS_LIMITS, PUBLIC_BASE_URL: base }, { role: ProcessRole.All });
    await t.app.listen(port, '127.0.0.1');
    account = await seedAccount(t);
    const created = await t
      .http()
      .post('/api/v1/remove-background')
      .set(bearer(account.sandboxKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({
        input: ['sandbox_unsure-mug', 'sandbox_unsure-lamp', 'sandbox_unsure-vase', 'sure-cup'].map((id, i) => ({
          image_url: `https://images.example.com/p/${i}.jpg`,
          external_id: id,
        })),
      })
      .expect(202);
    await waitForJob(t, created.body.job.id);
    const rows: Array<{ id: string; external_id: string }> = await t.dataSource.query(
      `SELECT id, external_id FROM job_results WHERE account_id = $1 AND flagged ORDER BY completed_at DESC, id DESC`,
      [account.accountId],
    );
    flagged = rows.map((row) => ({ id: row.id, externalId: row.external_id }));
    expect(flagged).toHaveLength(3);
  }, 60_000);

  afterAll(() => t?.close());

  const cli = (args: string[], key = account.sandboxKey) =>
    runCli(['review', ...args], { IMAGE_JOBS_API_KEY: key, IMAGE_JOBS_BASE_URL: base });

  const stateOf = async (resultId: string) =>
    (await t.dataSource.query(`SELECT review_state, review_note FROM job_results WHERE id = $1`, [resultId]))[0];

  it('lists the pending flagged cut-outs, newest first, one line each, at most --limit', async () => {
    const all = await cli(['list']);
    expect(all.code).toBe(0);
    const lines = all.output.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(flagged.map((result) => result.id));
    expect(lines[0]).toMatch(/ pending +0\.900 +remove_background +\d{4}-\d{2}-\d{2}T\S+Z +sandbox_unsure-/);

    const two = await cli(['list', '--limit', '2', '--tool', 'remove_background', '--since', '2026-01-01']);
    expect(two.output.trim().split('\n')).toEqual(lines.slice(0, 2));
    expect((await cli(['list', '--tool', 'image_editing'])).output.trim()).toBe('no flagged cut-outs match');
    expect((await cli(['list'], account.liveKey)).output.trim()).toBe('no flagged cut-outs match');
  });

  it('accepts and rejects a result with a note, and lists it under its new state', async () => {
    const [first, second] = flagged;
    const accepted = await cli(['accept', first.id, '--note', 'fine']);
    expect(accepted).toMatchObject({ code: 0 });
    expect(accepted.output).toContain(`${first.id} accepted by ${account.sandboxKeyId} at `);
    expect(await stateOf(first.id)).toEqual({ review_state: 'accepted', review_note: 'fine' });

    const rejected = await cli(['reject', second.id]);
    expect(rejected.output).toContain(`${second.id} rejected`);
    expect(await stateOf(second.id)).toEqual({ review_state: 'rejected', review_note: null });

    const listed = await cli(['list', '--state', 'accepted']);
    expect(
      listed.output
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual([first.id]);
  });

  it('refuses bad flags and unknown results with a message and a non-zero exit code, changing nothing', async () => {
    const before = await t.dataSource.query(`SELECT id, review_state FROM job_results ORDER BY id`);
    const badState = await cli(['list', '--state', 'done']);
    expect(badState.code).toBe(2);
    expect(badState.output).toMatch(/--state.*done/);
    const badSince = await cli(['list', '--since', 'yesterday']);
    expect(badSince.code).toBe(2);
    expect(badSince.output).toContain('a day (2026-11-28)');
    const unknown = await cli(['accept', '5a0d1c52-1f0e-4a49-9b8b-2f0f3e2b1a11']);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(/error: No such result/);
    const longNote = await cli(['reject', flagged[2].id, '--note', 'x'.repeat(1001)]);
    expect(longNote.code).toBe(1);
    const noKey = await runCli(['review', 'list'], { IMAGE_JOBS_BASE_URL: base });
    expect(noKey.code).toBe(2);
    expect(noKey.output).toContain('an API key is needed');
    expect(await t.dataSource.query(`SELECT id, review_state FROM job_results ORDER BY id`)).toEqual(before);
  });
});
