import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { DomainError, type FieldError } from '../errors/domain-error';

function joinPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

/** Flattens class-validator's tree into `{ path, message }` pairs such as `input[2].image_url`. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const path = joinPath(parent, error.property);
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path: path || 'body', message }));
    return [...own, ...flattenValidationErrors(error.children ?? [], path)];
  });
}

/** Path of the first string holding a NUL character, which PostgreSQL text cannot store. */
function findNulString(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNulString(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const found = findNulString(child, joinPath(path, key));
      if (found) return found;
    }
  }
  return null;
}

const LOCATION_PREFIX: Partial<Record<ArgumentMetadata['type'], string>> = { query: 'query', param: 'path' };

/**
 * DTO validation for every route: unknown fields are refused (a typo must not pass silently),
 * values are not coerced unless a DTO asks for it, and errors carry paths the client can act on.
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => DomainError.invalid(flattenValidationErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw DomainError.invalid([{ path: 'body', message: 'the body must be a JSON object' }]);
    }
    const nulPath = metadata.type === 'body' ? findNulString(value, '') : null;
    if (nulPath) throw DomainError.invalid([{ path: nulPath, message: 'must not contain NUL characters' }]);
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      const prefix = LOCATION_PREFIX[metadata.type];
      if (prefix && error instanceof DomainError && Array.isArray(error.details?.errors)) {
        const errors = (error.details.errors as FieldError[]).map((e) => ({ ...e, path: joinPath(prefix, e.path) }));
        throw DomainError.invalid(errors);
      }
      throw error;
    }
  }
}
