import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { testServices } from './test-services';

/** A throwaway database on the test server, for child processes that run their own migrations. */
export async function createScratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = new URL(testServices().databaseUrl);
  const name = `imgjobs_scratch_${randomBytes(5).toString('hex')}`;
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
