import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, CONNECTIONS, type Connections } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { dataSourceOptions } from './data-source-options';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG, CONNECTIONS],
      useFactory: (config: AppConfig, connections: Connections) => ({
        ...dataSourceOptions({
          url: connections.databaseUrl,
          poolSize: config.DATABASE_POOL_SIZE,
          schema: connections.databaseSchema,
          lockTimeoutMs: config.DATABASE_LOCK_TIMEOUT_MS,
          statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
        }),
        // Each module registers its own entities (`TypeOrmModule.forFeature`); the service's
        // connection knows those of the modules its role imports.
        autoLoadEntities: true,
        // Start-up fails fast on a bad DATABASE_URL rather than retrying for minutes.
        retryAttempts: 2,
        retryDelay: 1000,
      }),
    }),
  ],
})
export class DatabaseModule {}
