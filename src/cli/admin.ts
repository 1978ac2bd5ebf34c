import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigModule } from '../core/config/config.module';
import { loadConfig } from '../core/config/load-config';
import { DatabaseModule } from '../core/database/database.module';
import { DomainError } from '../core/errors/domain-error';
import { MetricsModule } from '../core/metrics/metrics.module';
import { RedisModule } from '../core/redis/redis.module';
import { AdminServicesModule } from '../modules/admin/admin.module';
import { AdminService } from '../modules/admin/admin.service';
import { ADMIN_COMMANDS } from './admin-commands';
import { cliConnections } from './cli-connections';

@Module({})
class AdminCliModule {
  static create(): DynamicModule {
    const config = loadConfig(process.env);
    return {
      module: AdminCliModule,
      imports: [
        ConfigModule.forRoot(config, cliConnections(config)),
        // The credit services record metrics; a command's are simply never scraped.
        MetricsModule,
        DatabaseModule,
        RedisModule,
        AdminServicesModule,
      ],
    };
  }
}

const OPTION_NAMES = ['name', 'credits', 'api-access', 'restricted-until', 'environment', 'amount', 'reason', 'limit'];

function usage(): string {
  return [
    'Usage: npm run admin -- <command> [arguments]',
    '',
    ...Object.values(ADMIN_COMMANDS).map((c) => `  ${c.usage}`),
  ].join('\n');
}

/** `npm run admin -- <command>`: the admin API's operations from a shell, printed as JSON. */
async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      args: process.argv.slice(2),
      options: Object.fromEntries(OPTION_NAMES.map((option) => [option, { type: 'string' as const }])),
    });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${usage()}\n`);
    return 2;
  }
  const { positionals, values } = parsed;
  const [name, ...args] = positionals;
  const command = name ? ADMIN_COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`${usage()}\n`);
    return 2;
  }
  const app = await NestFactory.createApplicationContext(AdminCliModule.create(), {
    logger: false,
    abortOnError: false,
  });
  try {
    const output = await command.run(app.get(AdminService), args, values);
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    process.stderr.write(
      `${JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } }, null, 2)}\n`,
    );
    return 1;
  } finally {
    await app.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
