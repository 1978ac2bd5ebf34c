import 'reflect-metadata';
import { runMigrations } from '../core/database/migrate';
import { loadConfig } from '../core/config/load-config';
import { cliConnections } from './cli-connections';

/** `npm run migration:run`: applies pending migrations and lists them. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const applied = await runMigrations({ url: cliConnections(config).databaseUrl, poolSize: 1 });
  process.stdout.write(applied.length > 0 ? `Applied: ${applied.join(', ')}\n` : 'No pending migrations.\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
