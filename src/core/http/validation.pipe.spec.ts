import type { ValidationError } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { DomainError } from '../errors/domain-error';
import { ErrorCode } from '../errors/error-code';
import { flattenValidationErrors, RequestValidationPipe } from './validation.pipe';

class ImageDto {
  @IsUrl({ protocols: ['https'], require_protocol: true })
  image_url!: string;

  @IsOptional()
  @IsString()
  external_id?: string;
}

class OutputDto {
  @IsOptional()
  @IsIn(['jpg', 'png', 'webp'])
  format?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(4)
  number_of_images?: number;
}

class CreateDto {
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => ImageDto)
  input!: ImageDto[];

  @IsOptional()
  @ValidateNested()
  @Type(() => OutputDto)
  output?: OutputDto;
}

class QueryDto {
  @IsOptional()
  @IsIn(['a', 'b'])
  operation?: string;
}

function error(
  property: string,
  constraints?: Record<string, string>,
  children: ValidationError[] = [],
): ValidationError {
  return { property, constraints, children };
}

/** Runs the pipe and returns the DomainError it throws. */
async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (thrown) {
    if (thrown instanceof DomainError) return thrown;
    throw thrown;
  }
  throw new Error('the pipe accepted the value');
}

describe(flattenValidationErrors.name, () => {
  it('writes array indexes in brackets: input[2].image_url', () => {
    const tree = [
      error('input', undefined, [
        error('2', undefined, [error('image_url', { isUrl: 'image_url must be a URL address' })]),
      ]),
    ];
    expect(flattenValidationErrors(tree)).toEqual([
      { path: 'input[2].image_url', message: 'image_url must be a URL address' },
    ]);
  });

  it('joins nested objects with dots: output.format', () => {
    const tree = [error('output', undefined, [error('format', { isIn: 'format must be one of jpg, png, webp' })])];
    expect(flattenValidationErrors(tree)).toEqual([
      { path: 'output.format', message: 'format must be one of jpg, png, webp' },
    ]);
  });

  it('gives one entry per failed constraint, at every level', () => {
    const tree = [
      error('name', { isString: 'name must be a string', length: 'name is too long' }),
      error('output', { isObject: 'output must be an object' }, [error('number_of_images', { max: 'too many' })]),
    ];
    expect(flattenValidationErrors(tree)).toEqual([
      { path: 'name', message: 'name must be a string' },
      { path: 'name', message: 'name is too long' },
      { path: 'output', message: 'output must be an object' },
      { path: 'output.number_of_images', message: 'too many' },
    ]);
  });

  it('prefixes a given parent path', () => {
    expect(flattenValidationErrors([error('operation', { isIn: 'bad' })], 'query')).toEqual([
      { path: 'query.operation', message: 'bad' },
    ]);
  });
});

describe(RequestValidationPipe.name, () => {
  const pipe = new RequestValidationPipe();

  it('reports class-validator errors with client paths: input[2].image_url and output.format', async () => {
    const body = {
      input: [
        { image_url: 'https://a.example/1.jpg' },
        { image_url: 'https://a.example/2.jpg' },
        { image_url: 'not a url' },
      ],
      output: { format: 'gif' },
    };
    const thrown = await rejection(pipe.transform(body, { type: 'body', metatype: CreateDto }));
    expect(thrown.code).toBe(ErrorCode.InvalidRequest);
    const paths = (thrown.details?.errors as Array<{ path: string; message: string }>).map((e) => e.path);
    expect(paths.sort()).toEqual(['input[2].image_url', 'output.format']);
  });

  it('refuses unknown fields, naming them', async () => {
    const thrown = await rejection(
      pipe.transform(
        { input: [{ image_url: 'https://a.example/1.jpg', imageurl: 'x' }], outptu: {} },
        { type: 'body', metatype: CreateDto },
      ),
    );
    const paths = (thrown.details?.errors as Array<{ path: string }>).map((e) => e.path);
    expect(paths.sort()).toEqual(['input[0].imageurl', 'outptu']);
  });

  it('refuses a body that is not a JSON object', async () => {
    for (const body of [[], [{ image_url: 'https://a.example/1.jpg' }], 'text', 42, null]) {
      const thrown = await rejection(pipe.transform(body, { type: 'body', metatype: CreateDto }));
      expect(thrown.details).toEqual({ errors: [{ path: 'body', message: expect.any(String) }] });
    }
  });

  it('prefixes query errors with query.', async () => {
    const thrown = await rejection(pipe.transform({ operation: 'c' }, { type: 'query', metatype: QueryDto }));
    expect((thrown.details?.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(['query.operation']);
  });

  it('passes a valid body through as an instance of its DTO', async () => {
    const value = await pipe.transform(
      { input: [{ image_url: 'https://a.example/1.jpg' }], output: { format: 'png' } },
      { type: 'body', metatype: CreateDto },
    );
    expect(value).toBeInstanceOf(CreateDto);
  });

  it('refuses prototype-named keys at any depth, which the DTO transformation would skip', async () => {
    for (const [body, path] of [
      [JSON.parse('{"input":[{"image_url":"https://a.example/1.jpg"}],"__proto__":{"x":1}}'), '__proto__'],
      [{ input: [{ image_url: 'https://a.example/1.jpg', constructor: 'x' }] }, 'input[0].constructor'],
      [{ input: [{ image_url: 'https://a.example/1.jpg' }], output: { prototype: {} } }, 'output.prototype'],
    ] as const) {
      const thrown = await rejection(pipe.transform(body, { type: 'body', metatype: CreateDto }));
      expect(thrown.details).toEqual({ errors: [{ path, message: expect.stringContaining('should not exist') }] });
    }
  });

  it('refuses NUL characters in any string', async () => {
    const body = { input: [{ image_url: 'https://a.example/1.jpg', external_id: 'a\u0000b' }] };
    const thrown = await rejection(pipe.transform(body, { type: 'body', metatype: CreateDto }));
    expect(thrown.details).toEqual({ errors: [{ path: 'input[0].external_id', message: expect.any(String) }] });
  });
});
