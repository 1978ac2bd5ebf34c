import { Account } from '../../modules/accounts/account.entity';
import { ApiKey } from '../../modules/auth/api-key.entity';
import { Price } from '../../modules/catalog/price.entity';
import { CreditLedgerEntry } from '../../modules/credits/credit-ledger-entry.entity';
import { IdempotencyKey } from '../../modules/idempotency/idempotency-key.entity';
import { Job } from '../../modules/jobs/job.entity';
import { JobResult } from '../../modules/jobs/job-result.entity';
import { WebhookAttempt, WebhookDelivery, WebhookEvent, WebhookSecret } from '../../modules/webhooks/webhook.entities';
import { Platform1764000000000 } from './migrations/1764000000000-platform';
import { ServiceSecrets1764000000001 } from './migrations/1764000000001-service-secrets';
import { Jobs1764000000002 } from './migrations/1764000000002-jobs';
import { Webhooks1764000000003 } from './migrations/1764000000003-webhooks';

/** Listed, not globbed, so the same list works from `src/` under jest and from `dist/`. */
export const ENTITIES = [
  Account,
  ApiKey,
  CreditLedgerEntry,
  Price,
  Job,
  JobResult,
  IdempotencyKey,
  WebhookSecret,
  WebhookEvent,
  WebhookDelivery,
  WebhookAttempt,
];

export const MIGRATIONS = [
  Platform1764000000000,
  ServiceSecrets1764000000001,
  Jobs1764000000002,
  Webhooks1764000000003,
];
