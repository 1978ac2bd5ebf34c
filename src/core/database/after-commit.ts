import { Logger } from '@nestjs/common';
import {
  EventSubscriber,
  type EntityManager,
  type EntitySubscriberInterface,
  type QueryRunner,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
} from 'typeorm';

/** Actions waiting for their transaction's outcome, by the query runner that holds it. */
const pending = new WeakMap<QueryRunner, Array<() => void>>();

const logger = new Logger('AfterCommit');

/**
 * Runs `action` once the transaction `manager` belongs to has committed, and never if it rolls
 * back (a transaction `withTransactionRetry` runs again registers its actions again). Outside a
 * transaction the statement before this call has already committed, so the action runs now.
 * For effects that must not claim what the database may still undo: metrics counters.
 */
export function afterCommit(manager: EntityManager, action: () => void): void {
  const runner = manager.queryRunner;
  if (!runner?.isTransactionActive) return action();
  const actions = pending.get(runner);
  if (actions) actions.push(action);
  else pending.set(runner, [action]);
}

/**
 * Settles the actions of `afterCommit` when TypeORM reports the outermost commit or rollback
 * (the transaction is no longer active then). Savepoints are not tracked, as the service opens
 * none: an action registered inside a savepoint that rolls back would still run at the commit.
 */
@EventSubscriber()
export class AfterCommitSubscriber implements EntitySubscriberInterface {
  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    if (queryRunner.isTransactionActive) return;
    const actions = pending.get(queryRunner);
    if (!actions) return;
    pending.delete(queryRunner);
    for (const action of actions) {
      // The data is committed whatever an action does; its failure must not look like the commit's.
      try {
        action();
      } catch (error) {
        logger.error({ err: error }, 'an after-commit action failed');
      }
    }
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    if (!queryRunner.isTransactionActive) pending.delete(queryRunner);
  }
}
