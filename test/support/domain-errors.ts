import { DomainError } from '../../src/core/errors/domain-error';

/** The DomainError a service's call was refused with; fails when the call succeeded or threw anything else. */
export async function refusalOf(work: Promise<unknown>): Promise<DomainError> {
  const error: unknown = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}
