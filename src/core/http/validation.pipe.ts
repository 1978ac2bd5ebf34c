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

/**
 * Names that the DTO transformation skips rather than reports, so the unknown-field check never
 * sees them; they are refused here like any other unknown field.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The first problem the DTO validation cannot see: a string holding a NUL character, which
 * PostgreSQL text cannot store, or a prototype-named key.
 */
function findUnvalidatable(value: unknown, path: string): FieldError | null {
  if (typeof value === 'string') {
    return value.includes('\u0000') ? { path: path || 'body', message: 'must not contain NUL characters' } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnvalidatable(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const childPath = joinPath(path, key);
      if (PROTOTYPE_KEYS.has(key)) return { path: childPath, message: `property ${key} should not exist` };
      const found = findUnvalidatable(child, childPath);
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
    const problem = metadata.type === 'body' ? findUnvalidatable(value, '') : null;
    if (problem) throw DomainError.invalid([problem]);
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
