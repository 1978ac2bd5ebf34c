import pino from 'pino';
import { QueryFailedError } from 'typeorm';
import { capturedLog } from '../../../test/support/captured-log';
import { serializeError } from './error-serializer';

const SIGNED_URL = 'https://images.example.com/shoe.jpg?expires=1&signature=abcdefSECRET';

/** A failed insert as TypeORM reports one: the statement, its parameters and pg's error, whose fields it copies. */
function duplicateUrl(): QueryFailedError {
  const driverError = Object.assign(new Error('duplicate key value violates unique constraint "sources_url_key"'), {
    code: '23505',
    severity: 'ERROR',
    detail: `Key (url)=(${SIGNED_URL}) already exists.`,
    where: `SQL statement "INSERT INTO sources (url) VALUES ('${SIGNED_URL}')"`,
    schema: 'public',
    table: 'sources',
    constraint: 'sources_url_key',
    routine: '_bt_check_unique',
  });
  return new QueryFailedError('INSERT INTO sources (url) VALUES ($1)', [SIGNED_URL], driverError);
}

describe(serializeError.name, () => {
  it('keeps what failed and where (type, message, stack, code, constraint, table) and drops the data', () => {
    const serialized = serializeError(duplicateUrl());
    expect(serialized).toEqual({
      type: 'QueryFailedError',
      message: 'duplicate key value violates unique constraint "sources_url_key"',
      stack: expect.stringContaining('QueryFailedError'),
      code: '23505',
      severity: 'ERROR',
      schema: 'public',
      table: 'sources',
      constraint: 'sources_url_key',
      routine: '_bt_check_unique',
    });
    expect(JSON.stringify(serialized)).not.toContain('SECRET');
  });

  it('writes the same through the loggers as the service builds them, pino-http and plain pino alike', () => {
    const log = capturedLog();
    log.logger.error({ err: duplicateUrl() }, 'insert failed');
    const lines: string[] = [];
    const plain = pino(
      { serializers: { err: serializeError } },
      { write: (line: string) => void lines.push(line.trim()) },
    );
    plain.error({ err: duplicateUrl() }, 'insert failed');
    for (const line of [...log.lines(), ...lines]) {
      expect(line).not.toContain('SECRET');
      expect(line).not.toContain('INSERT INTO');
      expect(JSON.parse(line).err).toMatchObject({ type: 'QueryFailedError', constraint: 'sources_url_key' });
    }
  });

  it("keeps a cause chain, each with its own kept fields: the detail a client's message leaves out", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:8080'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
      address: '10.1.2.3',
      port: 8080,
    });
    const failure = new Error('The segmentation service refused the connection.', { cause: refused });
    expect(serializeError(failure)).toMatchObject({
      message: 'The segmentation service refused the connection.',
      cause: {
        type: 'Error',
        message: 'connect ECONNREFUSED 10.1.2.3:8080',
        code: 'ECONNREFUSED',
        syscall: 'connect',
        address: '10.1.2.3',
        port: 8080,
      },
    });
  });

  it("serializes an AggregateError's errors, and says what a cause is when it is not an error", () => {
    const aggregate = new AggregateError([new Error('connect ECONNREFUSED ::1:5432')], 'connect failed', {
      cause: 'a string',
    });
    expect(serializeError(aggregate)).toMatchObject({
      type: 'AggregateError',
      errors: [{ type: 'Error', message: 'connect ECONNREFUSED ::1:5432' }],
      cause: '[a string]',
    });
  });

  it('stops at a depth, whatever loop of causes an error carries', () => {
    const looping = new Error('outer');
    looping.cause = looping;
    expect(JSON.stringify(serializeError(looping))).toContain('[deeper causes left out]');
  });

  it('leaves what is not an error as it is', () => {
    expect(serializeError('just text')).toBe('just text');
    expect(serializeError(undefined)).toBeUndefined();
  });
});
