import { isInfrastructureOutage } from './outage';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe(isInfrastructureOutage.name, () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED')],
    ['a socket timeout', withCode('connect ETIMEDOUT', 'ETIMEDOUT')],
    ['a DNS failure during failover', withCode('getaddrinfo EAI_AGAIN redis', 'EAI_AGAIN')],
    ['ioredis closing a connection', new Error('Connection is closed.')],
    [
      'ioredis giving up on a command',
      named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 2).'),
    ],
    ['an ioredis command timeout', new Error('Command timed out')],
    ['a Redis still loading its data', new Error('LOADING Redis is loading the dataset in memory')],
    ['a Redis replica after failover', new Error("READONLY You can't write against a read only replica.")],
    ['pg losing its socket', new Error('Connection terminated unexpectedly')],
    ['pg failing to connect in time', new Error('timeout exceeded when trying to connect')],
    [
      'a pg client reused after its connection failed',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    [
      'PostgreSQL admin shutdown (pg_terminate_backend)',
      withCode('terminating connection due to administrator command', '57P01'),
    ],
    ['a PostgreSQL connection exception', withCode('connection failure', '08006')],
    [
      'a TypeORM transaction whose connection died',
      named(
        'QueryRunnerProviderAlreadyReleasedError',
        'Database connection provided by a query runner was already released',
      ),
    ],
    [
      'a TypeORM statement after its connection died',
      named('QueryRunnerAlreadyReleasedError', 'Query runner already released. Cannot run queries anymore.'),
    ],
    [
      'a TypeORM QueryFailedError around an admin shutdown',
      Object.assign(new Error('terminating connection'), { driverError: withCode('x', '57P01') }),
    ],
    [
      'an outage chained as cause',
      new Error('enqueue failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }),
    ],
    [
      'a failed dual-stack connect',
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], 'connect failed'),
    ],
    ['a deadlock that outlasted its retries', withCode('deadlock detected', '40P01')],
    ['a lock timeout that outlasted its retries', withCode('canceling statement due to lock timeout', '55P03')],
    ['a statement cut off by statement_timeout', withCode('canceling statement due to statement timeout', '57014')],
  ])('recognises %s', (_, error) => {
    expect(isInfrastructureOutage(error)).toBe(true);
  });

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a constraint violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a value that is not an error', 'Connection is closed.'],
  ])('does not take %s for an outage', (_, error) => {
    expect(isInfrastructureOutage(error)).toBe(false);
  });
});
