import type { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, unknown>;
type Operation = {
  security?: unknown[];
  parameters?: Array<{ in: string }>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
};

const ERROR_RESPONSE = { $ref: '#/components/schemas/ErrorResponseDto' };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** What every operation can answer whatever its own decorators say, and when. */
const COMMON_ERRORS: Array<{
  status: string;
  description: string;
  applies: (path: string, operation: Operation) => boolean;
}> = [
  {
    status: '400',
    description: '`invalid_request`: a parameter or the body is not valid',
    applies: (path, operation) =>
      operation.requestBody !== undefined || (operation.parameters ?? []).some((p) => p.in !== 'header'),
  },
  {
    status: '401',
    description: '`unauthorized`: missing, unknown or revoked credentials',
    applies: (_, operation) => (operation.security ?? []).length > 0,
  },
  { status: '404', description: '`not_found`', applies: (path) => path.includes('{') },
  { status: '500', description: '`internal_error`', applies: () => true },
  {
    status: '503',
    description: '`service_unavailable`: PostgreSQL or Redis is unreachable; retry after `Retry-After`',
    applies: () => true,
  },
];

/**
 * Corrections the decorators cannot express, applied once to the generated document:
 *
 * - Every operation declares the error statuses any request can meet (400 where it takes
 *   input, 401 behind a key, 404 with a path id, 500, 503), each with the error envelope, so a
 *   generated client knows their shape.
 * - A nullable reference to an enum or an object (`allOf: [$ref], nullable: true`) is written
 *   inline: OpenAPI 3.0 ignores `nullable` on a schema without `type`, and beside an `allOf` it
 *   cannot let null through (the referenced schema still refuses it), so generated clients and
 *   validators would treat the field as never null.
 */
export function fixOpenApiDocument(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      for (const error of COMMON_ERRORS) {
        if (error.status in operation.responses || !error.applies(path, operation)) continue;
        operation.responses[error.status] = {
          description: error.description,
          content: { 'application/json': { schema: ERROR_RESPONSE } },
        };
      }
    }
  }
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  for (const schema of Object.values(schemas)) inlineNullableReferences(schema, schemas);
  return document;
}

function inlineNullableReferences(schema: Schema, schemas: Record<string, Schema>): void {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [name, property] of Object.entries(properties)) {
    const ref =
      Array.isArray(property.allOf) && property.allOf.length === 1 ? (property.allOf[0] as Schema).$ref : undefined;
    const target = typeof ref === 'string' ? schemas[ref.replace('#/components/schemas/', '')] : undefined;
    if (property.nullable !== true || !target) continue;
    const { allOf: _reference, ...rest } = property;
    if (Array.isArray(target.enum)) {
      properties[name] = {
        ...rest,
        type: target.type ?? 'string',
        enum: [...(target.enum as unknown[]), null],
        nullable: true,
      };
      continue;
    }
    // A copy, fixed in turn: the referenced schema's own nullable references may not have been visited yet.
    properties[name] = {
      ...target,
      ...rest,
      type: 'object',
      nullable: true,
      properties: { ...(target.properties as Schema | undefined) },
    };
    inlineNullableReferences(properties[name], schemas);
  }
}
