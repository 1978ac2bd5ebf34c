import type { TestingModuleBuilder } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { startTestApp, type TestApp } from './test-app';
import { testServices } from './test-services';

/**
 * Another API instance of the same deployment as `first`: the same database schema, the same
 * Redis key prefix and the same configuration, but its own process state (caches, Redis
 * connections), as a second replica behind a load balancer would have. Closing it leaves the
 * schema and the Redis keys to `first`, which owns them. `override` replaces providers at the
 * edge of the world, as `createTestApp`'s does; `redisUrl` reaches the same Redis another way
 * (through a relay the test can cut).
 */
export async function createSecondInstance(
  first: TestApp,
  role: ProcessRole = ProcessRole.Api,
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder,
  redisUrl: string = testServices().redisUrl,
): Promise<TestApp> {
  const { databaseUrl } = testServices();
  const schema = (first.dataSource.options as { schema?: string }).schema;
  if (!schema) throw new Error('the first app has no schema of its own to share');
  const connections = { databaseUrl, redisUrl, databaseSchema: schema };
  return startTestApp([AppModule.forRole(role, first.config, connections)], first.config, override);
}
