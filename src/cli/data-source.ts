import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from '../core/config/load-config';
import { dataSourceOptions } from '../core/database/data-source-options';
import { Account } from '../modules/accounts/account.entity';
import { ApiKey } from '../modules/auth/api-key.entity';
import { CapacityGroupCounter } from '../modules/capacity/capacity-group.entity';
import { Price } from '../modules/catalog/price.entity';
import { CreditLedgerEntry } from '../modules/credits/credit-ledger-entry.entity';
import { IdempotencyKey } from '../modules/idempotency/idempotency-key.entity';
import { OperatorIdempotencyKey } from '../modules/idempotency/operator-idempotency-key.entity';
import { Job } from '../modules/jobs/job.entity';
import { JobResult } from '../modules/jobs/job-result.entity';
import { WebhookAttempt, WebhookDelivery, WebhookEvent, WebhookSecret } from '../modules/webhooks/webhook.entities';

/**
 * Used by the TypeORM command line (`npm run migration:generate`) only. The service's own
 * connection loads the entities its modules register; this one, outside Nest, needs every
 * module's listed here, or the generated migration would drop the tables of those left out.
 */
const ENTITIES = [
  Account,
  ApiKey,
  CreditLedgerEntry,
  Price,
  Job,
  JobResult,
  CapacityGroupCounter,
  IdempotencyKey,
  OperatorIdempotencyKey,
  WebhookSecret,
  WebhookEvent,
  WebhookDelivery,
  WebhookAttempt,
];

const config = loadConfig(process.env);
if (!config.DATABASE_URL) throw new Error('DATABASE_URL must be set to generate migrations');

export default new DataSource({ ...dataSourceOptions({ url: config.DATABASE_URL, poolSize: 1 }), entities: ENTITIES });
