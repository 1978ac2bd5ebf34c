import type { Response } from 'supertest';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { ActivityExportsController } from '../../src/modules/account-activity/activity-exports.controller';
import { LEDGER_CSV_PAGE } from '../../src/modules/credits/ledger-csv';
import { parseCsv as parseCsvDocument } from '../support/csv';
import { expectError } from '../support/http-errors';
import { idempotencyKey, imageInputs, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import {
  bearer,
  createTestApp,
  seedAccount,
  TEST_ADMIN_TOKEN,
  type SeededAccount,
  type TestApp,
} from '../support/test-app';

const LEDGER_HEADER = ['id', 'created_at', 'kind', 'amount', 'credits', 'balance_after', 'job_id', 'reason'];
const USAGE_HEADER = ['date', 'tool', 'credits_used', 'results_completed', 'results_failed'];

/** Reasons a spreadsheet would misread: separators, quotes, line breaks and formulas. */
const TRICKY_REASONS = [
  'Refund, for the "late" batch\nsecond line',
  '=HYPERLINK("https://evil.example","click")',
  '+1 goodwill',
  '@SUM(A1:A2)',
  '-minus sign first',
  'a line\nand another',
];

/** An RFC 4180 document read back into rows; it must end where a record ends. */
function parseCsv(text: string): string[][] {
  const { rows, terminated } = parseCsvDocument(text);
  expect(terminated).toBe(true);
  return rows;
}

/** What a cell holds for a JSON value: formulas defused with a leading quote, null empty. */
const cell = (value: string | number | null): string =>
  value === null ? '' : typeof value === 'number' ? String(value) : /^[=+\-@]/.test(value) ? `'${value}` : value;

const csvOf = (res: Response): string => (res.body instanceof Buffer ? res.body.toString('utf8') : res.text);

describe(ActivityExportsController.name, () => {
  let t: TestApp;
  let account: SeededAccount;
  let other: SeededAccount;

  const get = (path: string, key: string) =>
    t
      .http()
      .get(`/api/v1/account${path}`)
      .set(bearer(key))
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
  const json = async (path: string, key: string) =>
    JSON.parse((await get(path, key).expect(200)).body.toString('utf8'));
  const grant = (accountId: string, amount: number, reason: string) =>
    t
      .http()
      .post(`/admin/v1/accounts/${accountId}/credits`)
      .set(bearer(TEST_ADMIN_TOKEN))
      .send({ amount, reason })
      .expect(200);
  const jsonLedger = async (key: string) => {
    const entries = [];
    let cursor: string | null = null;
    do {
      const body = await json(`/ledger?limit=100${cursor ? `&cursor=${cursor}` : ''}`, key);
      entries.push(...body.entries);
      cursor = body.next_cursor;
    } while (cursor);
    return entries as Array<Record<string, string | number | null>>;
  };
  const expectCsv = (res: Response, filename: RegExp) => {
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(filename);
    return parseCsv(csvOf(res));
  };

  beforeAll(async () => {
    t = await createTestApp(GENEROUS_LIMITS, { role: ProcessRole.All, override: withFakeProvider() });
    account = await seedAccount(t, { credits: 100 });
    other = await seedAccount(t, { credits: 50, name: 'Another account' });
    for (const reason of TRICKY_REASONS) await grant(account.accountId, 1, reason);
    await grant(other.accountId, 1, 'OTHER ACCOUNT ONLY');
    for (const [key, inputs] of [
      [account.liveKey, imageInputs(3, (i) => (i === 1 ? 'fail-1' : `ok-${i}`))],
      [account.sandboxKey, imageInputs(2, (i) => (i === 0 ? 'sandbox_fail_0' : `ok-${i}`))],
      [other.liveKey, imageInputs(5)],
    ] as const) {
      const job = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(key))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: inputs })
        .expect(202);
      await waitForJob(t, job.body.job.id);
    }
  });
  afterAll(() => t.close());

  describe('GET /account/ledger.csv', () => {
    it('holds a header and the JSON ledger’s entries, in order, quoted and with formulas defused', async () => {
      const rows = expectCsv(await get('/ledger.csv', account.liveKey), /^attachment; filename="ledger-live\.csv"$/);
      const entries = await jsonLedger(account.liveKey);
      expect(rows[0]).toEqual(LEDGER_HEADER);
      expect(rows.slice(1)).toEqual(entries.map((entry) => LEDGER_HEADER.map((column) => cell(entry[column]))));
      expect(rows.length - 1).toBe(1 + TRICKY_REASONS.length + 1 + 3);
      const reasons = rows.slice(1).map((row) => row[7]);
      expect(reasons).toEqual(
        expect.arrayContaining([
          'Refund, for the "late" batch\nsecond line',
          `'=HYPERLINK("https://evil.example","click")`,
          "'+1 goodwill",
          "'@SUM(A1:A2)",
          "'-minus sign first",
          'a line\nand another',
        ]),
      );
      // A negative amount stays a number.
      expect(rows.find((row) => row[2] === 'reserve')?.[3]).toBe('-3');
      const text = csvOf(await get('/ledger.csv', account.liveKey));
      expect(text).toContain('"Refund, for the ""late"" batch\nsecond line"');
      expect(text).toContain(',"a line\nand another"\r\n');
      expect(text.endsWith('\r\n')).toBe(true);
      expect(text).not.toContain('OTHER ACCOUNT ONLY');
      expect(text).not.toContain(other.accountId);
    });

    it('gives a sandbox key the grants and corrections only, as its JSON ledger', async () => {
      const rows = expectCsv(await get('/ledger.csv', account.sandboxKey), /filename="ledger-sandbox\.csv"/);
      const entries = await jsonLedger(account.sandboxKey);
      expect(rows.slice(1)).toEqual(entries.map((entry) => LEDGER_HEADER.map((column) => cell(entry[column]))));
      expect(new Set(rows.slice(1).map((row) => row[2]))).toEqual(new Set(['grant']));
    });

    it('streams a history longer than a page, every entry once with its balance', async () => {
      const long = await seedAccount(t, { credits: 0, name: 'Long history' });
      const count = LEDGER_CSV_PAGE * 2 + 3;
      await t.dataSource.query(
        `INSERT INTO credit_ledger (account_id, kind, amount, credits, reason, created_at)
         SELECT $1, 'grant', 1, 1, 'bulk ' || n, now() - (n || ' seconds')::interval FROM generate_series(1, $2) n`,
        [long.accountId, count],
      );
      await t.dataSource.query(`UPDATE accounts SET paid_credits = $2 WHERE id = $1`, [long.accountId, count]);
      const rows = expectCsv(await get('/ledger.csv', long.liveKey), /ledger-live\.csv/).slice(1);
      expect(rows).toHaveLength(count);
      expect(new Set(rows.map((row) => row[0])).size).toBe(count);
      expect(rows.map((row) => row[5])).toEqual(Array.from({ length: count }, (_, i) => String(count - i)));
      expect(rows.map((row) => row[7])).toEqual(Array.from({ length: count }, (_, i) => `bulk ${i + 1}`));
    });
  });

  describe('GET /account/usage.csv', () => {
    const today = () => new Date().toISOString().slice(0, 10);

    it('holds one row per day and tool, as the JSON usage counts them', async () => {
      const res = await get('/usage.csv', account.liveKey);
      const rows = expectCsv(res, /^attachment; filename="usage-live-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"$/);
      const usage = (await json('/usage', account.liveKey)).usage;
      expect(rows).toEqual([USAGE_HEADER, [today(), 'image_editing', '2', '2', '1']]);
      const day = usage.by_day.find((d: { date: string }) => d.date === today());
      expect(rows[1].slice(2)).toEqual([day.credits_used, day.results_completed, day.results_failed].map(String));
      expect(res.headers['content-disposition']).toContain(`-to-${today()}.csv`);
    });

    it('keeps to the key’s environment and account', async () => {
      expect(expectCsv(await get('/usage.csv', account.sandboxKey), /usage-sandbox-/)).toEqual([
        USAGE_HEADER,
        [today(), 'image_editing', '0', '1', '1'],
      ]);
      expect(expectCsv(await get('/usage.csv', other.liveKey), /usage-live-/)).toEqual([
        USAGE_HEADER,
        [today(), 'image_editing', '5', '5', '0'],
      ]);
    });

    it('takes the JSON read’s range: days outside it are left out', async () => {
      const rows = expectCsv(
        await get('/usage.csv?from=2020-01-01&to=2020-01-31', account.liveKey),
        /filename="usage-live-2020-01-01-to-2020-01-31\.csv"/,
      );
      expect(rows).toEqual([USAGE_HEADER]);
    });

    it('refuses a bad range or parameter with the JSON error envelope', async () => {
      const refusals: Array<[string, string]> = [
        ['/usage.csv?from=2026-02-30', 'query.from'],
        ['/usage.csv?from=2026-11-28&to=2026-11-27', 'query.from'],
        ['/usage.csv?from=yesterday', 'query.from'],
        ['/ledger.csv?limit=5', 'query.limit'],
      ];
      for (const [path, field] of refusals) {
        const res = await t.http().get(`/api/v1/account${path}`).set(bearer(account.liveKey));
        const error = expectError(res, 400, 'invalid_request');
        expect((error.details as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toContain(field);
      }
      expectError(await t.http().get('/api/v1/account/ledger.csv'), 401, 'unauthorized');
    });
  });
});
