import type { EntityManager, QueryRunner, TransactionCommitEvent } from 'typeorm';
import { afterCommit, AfterCommitSubscriber } from './after-commit';

/** A query runner as the subscriber sees it: only whether its transaction is still open. */
function transaction(): { manager: EntityManager; runner: { isTransactionActive: boolean } } {
  const runner = { isTransactionActive: true };
  return { manager: { queryRunner: runner } as unknown as EntityManager, runner };
}

const eventOf = (runner: { isTransactionActive: boolean }) =>
  ({ queryRunner: runner as QueryRunner }) as TransactionCommitEvent;

describe(afterCommit.name, () => {
  const subscriber = new AfterCommitSubscriber();

  it('runs the actions once the transaction has committed, in order, and only once', () => {
    const { manager, runner } = transaction();
    const ran: string[] = [];
    afterCommit(manager, () => ran.push('first'));
    afterCommit(manager, () => ran.push('second'));
    expect(ran).toEqual([]);
    runner.isTransactionActive = false;
    subscriber.afterTransactionCommit(eventOf(runner));
    subscriber.afterTransactionCommit(eventOf(runner));
    expect(ran).toEqual(['first', 'second']);
  });

  it('drops the actions of a transaction that rolled back', () => {
    const { manager, runner } = transaction();
    const action = jest.fn();
    afterCommit(manager, action);
    runner.isTransactionActive = false;
    subscriber.afterTransactionRollback(eventOf(runner));
    subscriber.afterTransactionCommit(eventOf(runner));
    expect(action).not.toHaveBeenCalled();
  });

  it('waits for the outermost commit: a savepoint released inside the transaction runs nothing', () => {
    const { manager, runner } = transaction();
    const action = jest.fn();
    afterCommit(manager, action);
    subscriber.afterTransactionCommit(eventOf(runner));
    expect(action).not.toHaveBeenCalled();
  });

  it('runs at once outside a transaction, where the statement before it has already committed', () => {
    const action = jest.fn();
    afterCommit({ queryRunner: undefined } as unknown as EntityManager, action);
    expect(action).toHaveBeenCalledTimes(1);
  });
});
