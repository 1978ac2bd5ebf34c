import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OPENAPI_JSON_PATH } from '../../src/core/bootstrap/http-app';
import { createTestApp, type TestApp } from '../support/test-app';

const CLIENT_DIR = join(__dirname, '..', '..', 'packages', 'client');
const GENERATOR = join(CLIENT_DIR, 'scripts', 'generate-types.mjs');
const GENERATED_TYPES = join(CLIENT_DIR, 'src', 'generated', 'openapi.ts');

/** The client's types for `document`, from the package's generator (an ES module, so in a process of its own). */
function generateTypes(document: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [GENERATOR], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
    child.stdin?.end(document);
  });
}

/**
 * The client's types are generated from the document this build serves, so they cannot drift from it: a change to the
 * API fails here until the types are regenerated (`npm run client:generate`, which runs this file with
 * UPDATE_CLIENT_TYPES=1 and writes them) and committed with it.
 */
describe('Client types generated from the OpenAPI document', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('are exactly what openapi-typescript makes of the served document', async () => {
    const res = await t.http().get(`/${OPENAPI_JSON_PATH}`).expect(200);
    const generated = await generateTypes(res.text);
    if (process.env.UPDATE_CLIENT_TYPES === '1') await writeFile(GENERATED_TYPES, generated);
    const committed = await readFile(GENERATED_TYPES, 'utf8');
    // A boolean rather than the two files, so a failure says what to do instead of printing 3000 lines twice.
    expect({ upToDate: committed === generated, fix: 'npm run client:generate' }).toEqual({
      upToDate: true,
      fix: 'npm run client:generate',
    });
  });
});
