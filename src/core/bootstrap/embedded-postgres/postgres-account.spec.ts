import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import {
  accountCan,
  ensurePostgresAccount,
  reachableDataDir,
  RELOCATION_ROOT,
  type SystemAccount,
} from './postgres-account';

const asRoot = process.getuid?.() === 0;
const logger = pino({ level: 'silent' });

// Only root can switch to PostgreSQL's account; as anyone else the server runs as that user.
(asRoot ? describe : describe.skip)("PostgreSQL's system account, as root", () => {
  let account: SystemAccount;
  let folder: string;

  beforeAll(async () => {
    account = await ensurePostgresAccount();
  });
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'imgjobs-reach-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('is an unprivileged account', () => {
    expect(account.uid).toBeGreaterThan(0);
  });

  it('cannot enter a folder only root may enter, and can once others may', async () => {
    chmodSync(folder, 0o700);
    expect(await accountCan(account, 'x', folder)).toBe(false);
    chmodSync(folder, 0o755);
    expect(await accountCan(account, 'x', folder)).toBe(true);
    expect(await accountCan(account, 'w', folder)).toBe(false);
  });

  it('keeps the data in place when it can reach it, elsewhere (the same place each time) when not', async () => {
    const inPlace = join(folder, 'data', 'postgres');
    chmodSync(folder, 0o755);
    expect(await reachableDataDir(inPlace, account, logger)).toBe(inPlace);

    chmodSync(folder, 0o700);
    const moved = await reachableDataDir(inPlace, account, logger);
    expect(moved.startsWith(join(RELOCATION_ROOT, 'data'))).toBe(true);
    expect(await reachableDataDir(inPlace, account, logger)).toBe(moved);
    expect(await accountCan(account, 'x', join(RELOCATION_ROOT, 'data'))).toBe(true);
    expect(await reachableDataDir(join(folder, 'other', 'postgres'), account, logger)).not.toBe(moved);
  });
});
