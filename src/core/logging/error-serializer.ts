/**
 * Properties of an error that say what failed and where in the service, never with what data:
 * Node's network fields (the address and port connected to belong in the log), PostgreSQL's
 * names of the constraint, table and column, and the service's own error codes.
 */
const KEPT_PROPERTIES = [
  'code',
  'errno',
  'syscall',
  'address',
  'port',
  'hostname',
  'severity',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'routine',
  'status',
  'retryable',
  'remote',
  'failure',
] as const;

/**
 * PostgreSQL ends some messages with the value it refused (`invalid input syntax for type uuid:
 * "…"`, `invalid input value for enum …: "…"`), which can be a statement's parameter; the names
 * of constraints, tables and columns it quotes stand earlier in the message and are kept.
 */
const REFUSED_VALUE = /: ".*"$/s;
const LEFT_OUT_VALUE = ': "[the value is left out]"';

/** Causes nested deeper than this are cut off, whatever loops or chains an error carries. */
const MAX_DEPTH = 5;

/** An error as a log line holds it. */
export interface SerializedError {
  type: string;
  message: string;
  stack?: string;
  cause?: SerializedError | string;
  errors?: Array<SerializedError | string>;
  [property: string]: unknown;
}

interface ErrorLike {
  message: string;
  name?: unknown;
  stack?: unknown;
  cause?: unknown;
  errors?: unknown;
  constructor?: { name?: unknown };
}

const isErrorLike = (value: unknown): value is ErrorLike =>
  typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';

/**
 * The `err` serializer of every logger: the error's type, message and stack, the properties in
 * KEPT_PROPERTIES, its cause and an AggregateError's errors, and nothing else. pino's own
 * serializer writes every enumerable property, and a failed query carries plenty: TypeORM's
 * QueryFailedError holds the statement's `parameters` (a webhook secret, a signed URL, a key
 * hash) and `query`, and copies the driver's `detail` (`Key (url)=(https://…?signature=…)
 * already exists`), `where` and `internalQuery` onto itself beside its `driverError`. Listing
 * what is kept, rather than what is dropped, keeps the next driver's field out as well.
 *
 * pino-http hands this serializer what pino's own made of the error; the error itself is its
 * `raw`, and that is what is read.
 */
export function serializeError(value: unknown): unknown {
  const wrapped = (value as { raw?: unknown } | null | undefined)?.raw;
  const error = isErrorLike(wrapped) ? wrapped : value;
  return isErrorLike(error) ? serialize(error, 0) : error;
}

function serialize(error: ErrorLike, depth: number): SerializedError {
  const constructorName = error.constructor?.name;
  const type =
    typeof constructorName === 'string' && constructorName !== 'Object'
      ? constructorName
      : typeof error.name === 'string'
        ? error.name
        : 'Error';
  const properties = error as unknown as Record<string, unknown>;
  // A database error (it names its PostgreSQL routine) says what it refused without the value.
  const message =
    typeof properties.routine === 'string' ? error.message.replace(REFUSED_VALUE, LEFT_OUT_VALUE) : error.message;
  const serialized: SerializedError = { type, message };
  if (typeof error.stack === 'string') serialized.stack = error.stack.replace(error.message, message);
  for (const property of KEPT_PROPERTIES) {
    const kept = properties[property];
    if (kept !== undefined && kept !== null && typeof kept !== 'object' && typeof kept !== 'function')
      serialized[property] = kept;
  }
  if (error.cause !== undefined) serialized.cause = nested(error.cause, depth);
  if (Array.isArray(error.errors)) serialized.errors = error.errors.map((inner: unknown) => nested(inner, depth));
  return serialized;
}

/** A cause or an aggregated error: serialized in turn, or said in words when it is not an error. */
function nested(value: unknown, depth: number): SerializedError | string {
  if (depth >= MAX_DEPTH) return '[deeper causes left out]';
  return isErrorLike(value) ? serialize(value, depth + 1) : `[a ${typeof value}]`;
}
