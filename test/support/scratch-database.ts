import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { testServices } from './test-services';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A throwaway database on the server of `serverUrl` (the test server by default), for child
 * processes that run their own migrations; `namePrefix` tells whose it is if one is left behind.
 */
export async function createScratchDatabase(
  serverUrl: string = testServices().databaseUrl,
  namePrefix = 'imgjobs_scratch',
): Promise<ScratchDatabase> {
  const base = new URL(serverUrl);
  const name = `${namePrefix}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new Client({ connectionString: base.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
