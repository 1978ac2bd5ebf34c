import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from './config.schema';

export const APP_CONFIG = Symbol('APP_CONFIG');
export const CONNECTIONS = Symbol('CONNECTIONS');

/**
 * Where PostgreSQL and Redis actually are once the entry point has resolved them (from the
 * settings, or embedded services in a development run).
 */
export interface Connections {
  databaseUrl: string;
  redisUrl: string;
  /** A PostgreSQL schema to work in; tests give each run its own. */
  databaseSchema?: string;
}

/** Makes the validated configuration and resolved connections injectable everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig, connections: Connections): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: CONNECTIONS, useValue: connections },
      ],
      exports: [APP_CONFIG, CONNECTIONS],
    };
  }
}
