// The console's types are the ones generated from the OpenAPI document (console/src/types.ts): a field
// renamed in the API must fail the console's type check. Checked with TypeScript's compiler API and the
// console's own tsconfig.json: the console as it is type-checks; a small module beside console/src/types.ts
// that reads a field the API does not have fails, naming it, while the same module with the right field
// passes; and against a copy of the generated document with that field renamed (kept in memory: the file
// is not touched) the pages reading it fail, and so does the module reading it through types.ts. Runs with
// Node's test runner (`npm run lint:boundaries`, part of `npm run lint`) in a few seconds.
import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONSOLE = join(REPO, 'console');
const GENERATED = join(REPO, 'packages', 'client', 'src', 'generated', 'openapi.ts');
/** Two console modules beside console/src/types.ts, kept in memory: one reads a field the API has, one a wrong one. */
const RIGHT = join(CONSOLE, 'src', 'right-field.fixture.ts');
const WRONG = join(CONSOLE, 'src', 'wrong-field.fixture.ts');

const config = ts.getParsedCommandLineOfConfigFile(
  join(CONSOLE, 'tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
);
assert.ok(config, 'console/tsconfig.json could not be read');
const options = { ...config.options, noEmit: true };

/** Parsed files by path and text, shared by the type checks (the DOM's declarations are most of the work). */
const parsed = new Map();

/**
 * The errors of the console's type check, with some files' text replaced in memory (by absolute path) and any extra
 * root files (the fixtures) added; each as `path:line: message`, the path relative to the repository.
 */
function typeCheck(replaced, extraRoots = []) {
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile } = host;
  host.fileExists = (file) => replaced.has(resolve(file)) || fileExists.call(host, file);
  host.readFile = (file) => replaced.get(resolve(file)) ?? readFile.call(host, file);
  host.getSourceFile = (file, languageVersion) => {
    const text = host.readFile(file);
    if (text === undefined) return undefined;
    const key = `${file}\0${text}`;
    if (!parsed.has(key)) parsed.set(key, ts.createSourceFile(file, text, languageVersion));
    return parsed.get(key);
  };
  const program = ts.createProgram([...config.fileNames, ...extraRoots], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    return `${diagnostic.file.fileName.slice(REPO.length + 1)}:${line + 1}: ${message}`;
  });
}

/** The generated document with the result's `result_url` named `result_link`, as if the API had renamed it. */
function documentWithRenamedField() {
  const text = ts.sys.readFile(GENERATED) ?? '';
  const start = text.indexOf('        JobResultDto: {');
  const field = text.indexOf('result_url:', start);
  assert.ok(start >= 0 && field > start, 'JobResultDto.result_url not found in the generated document');
  return `${text.slice(0, field)}result_link:${text.slice(field + 'result_url:'.length)}`;
}

/** A console module reading one field of a job's result. */
const fixture = (field) =>
  `import type { JobResult } from './types.js';\n` +
  `export const resultFile = (result: JobResult): string | null => result.${field};\n`;

describe('the console type-checks against the generated API types', () => {
  const withFixtures = typeCheck(
    new Map([
      [RIGHT, fixture('result_url')],
      [WRONG, fixture('result_link')],
    ]),
    [RIGHT, WRONG],
  );
  const inWrongFixture = (error) => error.startsWith('console/src/wrong-field.fixture.ts:');

  test('the console as it is, and a module reading a field the API has, type-check', () => {
    assert.deepEqual(
      withFixtures.filter((error) => !inWrongFixture(error)),
      [],
    );
  });

  test('a module reading a field the API does not have fails the type check, naming it', () => {
    const errors = withFixtures.filter(inWrongFixture);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /:2: Property 'result_link' does not exist on type/);
  });

  test('a field renamed in the API fails the console where it reads the old name, through its types too', () => {
    const errors = typeCheck(
      new Map([
        [GENERATED, documentWithRenamedField()],
        [RIGHT, fixture('result_url')],
      ]),
      [RIGHT],
    );
    const onRenamed = errors.filter((error) => /Property 'result_url' does not exist/.test(error));
    assert.ok(
      onRenamed.some((error) => error.startsWith('console/src/right-field.fixture.ts:2:')),
      `console/src/types.ts's JobResult did not follow the document:\n${errors.join('\n')}`,
    );
    assert.ok(
      onRenamed.some((error) => error.startsWith('console/src/pages/')),
      `no page fails:\n${errors.join('\n')}`,
    );
    assert.deepEqual(
      onRenamed.filter((error) => !error.startsWith('console/src/')),
      [],
    );
  });
});
