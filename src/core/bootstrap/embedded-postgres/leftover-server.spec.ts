import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { isPostmasterOf, isServiceProcess, stopLeftoverServer } from './leftover-server';

const logger = pino({ level: 'silent' });

describe('a PostgreSQL left running by an earlier run', () => {
  let databaseDir: string;
  beforeEach(() => (databaseDir = mkdtempSync(join(tmpdir(), 'imgjobs-leftover-'))));
  afterEach(() => rmSync(databaseDir, { recursive: true, force: true }));

  const lockFileNaming = (pid: number) =>
    writeFileSync(join(databaseDir, 'postmaster.pid'), `${pid}\n${databaseDir}\n`);

  it('is the postgres server of exactly this data folder', () => {
    const postgres = '/opt/pg/bin/postgres';
    expect(isPostmasterOf([postgres, '-D', databaseDir, '-p', '5433'], databaseDir)).toBe(true);
    expect(isPostmasterOf([postgres, '-D', `${databaseDir}/`], databaseDir)).toBe(true);
    expect(isPostmasterOf([postgres, '-D', '/var/lib/postgresql/16/main'], databaseDir)).toBe(false);
    expect(isPostmasterOf(['/usr/bin/node', '-D', databaseDir], databaseDir)).toBe(false);
    expect(isPostmasterOf(['postgres: postgres image_jobs 127.0.0.1 idle'], databaseDir)).toBe(false);
  });

  it("tells this service's processes from others", () => {
    expect(isServiceProcess(['node', 'dist/main.js', 'all'])).toBe(true);
    expect(isServiceProcess(['/usr/bin/node', '/srv/app/dist/main.js'])).toBe(true);
    expect(isServiceProcess(['/sbin/init'])).toBe(false);
  });

  it('leaves nothing to do without a lock file, or when the process it names is gone', async () => {
    await expect(stopLeftoverServer(databaseDir, logger, 1000)).resolves.toBeNull();
    lockFileNaming(2 ** 22 + 1); // above Linux's largest pid
    await expect(stopLeftoverServer(databaseDir, logger, 1000)).resolves.toBeNull();
  });

  it('never signals a live process that is not the postgres of this data folder', async () => {
    lockFileNaming(process.pid);
    const kill = jest.spyOn(process, 'kill');
    try {
      await expect(stopLeftoverServer(databaseDir, logger, 1000)).resolves.toMatch(
        new RegExp(`names process ${process.pid}, which is not this data folder's PostgreSQL`),
      );
      expect(kill.mock.calls.filter(([, signal]) => signal !== 0 && signal !== undefined)).toEqual([]);
    } finally {
      kill.mockRestore();
    }
  });
});
