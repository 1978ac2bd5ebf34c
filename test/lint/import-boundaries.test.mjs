// The import boundaries of eslint.config.mjs, checked on a small fixture tree laid out like src/:
// every forbidden import must be reported by boundaries/dependencies and every allowed one not.
// Runs with Node's test runner (`npm run lint:boundaries`, part of `npm run lint`) in about a
// second; the fixture lives in a temporary folder, so it does not depend on the real code, which
// may still break these rules while it is being reorganised.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { importBoundaries, MODULE_DEPENDENCIES } from '../../eslint.config.mjs';

/** Files the imports point at; each exports one constant. */
const TARGETS = [
  'src/main.ts',
  'src/core/errors/domain-error.ts',
  'src/core/image/image.service.ts',
  'src/modules/auth/access.decorator.ts',
  'src/modules/catalog/tools.ts',
  'src/modules/credits/credits.service.ts',
  'src/modules/jobs/job-status.ts',
  'src/modules/jobs/dto/image-edit.dto.ts',
  'src/modules/tools/tool-runner.ts',
  'src/modules/tools/tools.module.ts',
  'src/modules/tools/shared/decode.ts',
  'src/modules/tools/image-editing/edit-request.ts',
  'src/modules/tools/image-editing/steps/resize.ts',
  'src/modules/tools/background-removal/cutout.runner.ts',
  'src/modules/tools/generative/provider-failures.ts',
  'src/modules/accounts/accounts.repository.ts',
  'src/modules/accounts/accounts.module.ts',
  'src/modules/auth/auth.module.ts',
  'src/modules/credits/credits.module.ts',
  'src/modules/catalog/tool-availability.ts',
  'src/modules/webhooks/webhook-outbox.service.ts',
  'src/modules/uploads/uploads.service.ts',
  'src/modules/admin/admin.service.ts',
  'src/modules/newcomer/newcomer.repository.ts',
  'src/engine/raw-image.ts',
  'src/engine/mask/alpha-mask.ts',
  'src/engine/pixel-engine.ts',
  'src/engine/thread-module.ts',
  'src/core/segmentation/local-segmenter.ts',
  'src/core/config/config.schema.ts',
  'src/app.module.ts',
];

/** [importing file, import specifier] pairs that must be reported. */
const FORBIDDEN = [
  ['src/core/database/entities.ts', '../../modules/auth/access.decorator'],
  ['src/core/http/error.filter.ts', '../../modules/jobs/job-status'],
  ['src/core/image/pipeline.ts', '../../modules/tools/shared/decode'],
  ['src/core/image/pipeline.ts', '../../modules/tools/tool-runner'],
  ['src/core/image/pipeline.ts', '../../modules/catalog/tools'],
  ['src/core/image/pipeline.ts', '../../modules/tools/image-editing/edit-request'],
  ['src/modules/tools/image-editing/runner.ts', '../background-removal/cutout.runner'],
  ['src/modules/tools/image-editing/steps/crop.ts', '../../generative/provider-failures'],
  ['src/modules/tools/background-removal/cutout.runner.ts', '../image-editing/steps/resize'],
  ['src/modules/tools/image-editing/runner.ts', '../../jobs/job-status'],
  ['src/modules/tools/image-editing/runner.ts', '../../jobs/dto/image-edit.dto'],
  ['src/modules/tools/image-editing/runner.ts', '../../credits/credits.service'],
  ['src/modules/tools/image-editing/runner.ts', '../tools.module'],
  ['src/modules/tools/shared/encode.ts', '../image-editing/edit-request'],
  ['src/modules/tools/shared/encode.ts', '../../jobs/job-status'],
  ['src/modules/tools/tool-runners.ts', '../jobs/job-status'],
  ['src/modules/tools/tool-runners.ts', './generative/provider-failures'],
  ['src/modules/tools/tools.module.ts', '../jobs/job-status'],
  // Between modules: only what the module's row of MODULE_DEPENDENCIES lists, in one direction.
  ['src/modules/accounts/accounts.service.ts', '../auth/access.decorator'],
  ['src/modules/accounts/accounts.module.ts', '../credits/credits.module'],
  ['src/modules/auth/api-keys.service.ts', '../credits/credits.service'],
  ['src/modules/credits/credits.service.ts', '../auth/auth.module'],
  ['src/modules/catalog/catalog.module.ts', '../tools/tools.module'],
  ['src/modules/catalog/tool-availability.ts', '../tools/tool-runner'],
  ['src/modules/catalog/catalog.controller.ts', '../tools/shared/decode'],
  ['src/modules/catalog/catalog.service.ts', '../tools/image-editing/edit-request'],
  ['src/modules/capacity/capacity.service.ts', '../credits/credits.service'],
  ['src/modules/webhooks/webhook-outbox.service.ts', '../jobs/job-status'],
  ['src/modules/webhooks/worker/webhook-delivery.service.ts', '../../jobs/dto/image-edit.dto'],
  ['src/modules/uploads/uploads.service.ts', '../jobs/job-status'],
  ['src/modules/admin/admin.service.ts', '../jobs/job-status'],
  ['src/modules/jobs/jobs.service.ts', '../admin/admin.service'],
  ['src/modules/tools/shared/encode.ts', '../../credits/credits.service'],
  ['src/modules/tools/image-editing/runner.ts', '../../webhooks/webhook-outbox.service'],
  ['src/modules/idempotency/idempotency.service.ts', '../accounts/accounts.repository'],
  // A module missing from the table may import no other module until its row is written.
  ['src/modules/newcomer/newcomer.service.ts', '../accounts/accounts.repository'],
  ['src/modules/newcomer/newcomer.service.ts', '../catalog/tools'],
  ['src/modules/newcomer/newcomer.service.ts', '../tools/tool-runner'],
  // Between layers (LAYERS): nothing imports a layer above its own.
  ['src/engine/mask/cutout-mask.ts', '../../core/segmentation/local-segmenter'],
  ['src/engine/compose/composite.ts', '../../core/image/image.service'],
  ['src/engine/tone/tone.ts', '../../modules/catalog/tools'],
  ['src/engine/mask/cutout-mask.ts', '../pixel-engine'],
  ['src/engine/mask/cutout-mask.spec.ts', '../pixel-engine'],
  ['src/engine/raw-image.ts', './thread-module'],
  ['src/engine/pixel-engine.ts', '../core/config/config.schema'],
  ['src/engine/thread-pool-engine.ts', '../modules/tools/tool-runner'],
  ['src/core/segmentation/local-segmenter.ts', '../../app.module'],
  ['src/modules/jobs/jobs.module.ts', '../../app.module'],
];

/** [importing file, import specifier] pairs that must pass. */
const ALLOWED = [
  ['src/modules/tools/image-editing/runner.ts', './edit-request'],
  ['src/modules/tools/image-editing/runner.ts', './steps/resize'],
  ['src/modules/tools/image-editing/steps/crop.ts', '../edit-request'],
  ['src/modules/tools/image-editing/runner.ts', '../shared/decode'],
  ['src/modules/tools/image-editing/steps/crop.ts', '../../shared/decode'],
  ['src/modules/tools/image-editing/runner.ts', '../tool-runner'],
  ['src/modules/tools/image-editing/runner.ts', '../../../core/errors/domain-error'],
  ['src/modules/tools/image-editing/runner.ts', '../../catalog/tools'],
  ['src/modules/tools/shared/encode.ts', './decode'],
  ['src/modules/tools/shared/encode.ts', '../../../core/image/image.service'],
  ['src/modules/tools/shared/encode.ts', '../../catalog/tools'],
  ['src/modules/tools/tool-runners.ts', './tool-runner'],
  ['src/modules/tools/tool-runners.ts', './shared/decode'],
  ['src/modules/tools/tools.module.ts', './image-editing/edit-request'],
  ['src/modules/tools/tools.module.ts', './background-removal/cutout.runner'],
  ['src/modules/jobs/job-creation.service.ts', '../tools/tool-runner'],
  ['src/modules/jobs/job-creation.service.ts', '../tools/image-editing/edit-request'],
  ['src/modules/jobs/job-creation.service.ts', '../catalog/tools'],
  ['src/modules/auth/access.guard.ts', '../../core/errors/domain-error'],
  ['src/core/image/pipeline.ts', '../errors/domain-error'],
  ['src/core/image/pipeline.ts', 'sharp'],
  ['src/main.ts', './modules/tools/tools.module'],
  ['src/main.ts', './core/errors/domain-error'],
  // Between modules, down the table.
  ['src/modules/auth/api-keys.service.ts', '../accounts/accounts.repository'],
  ['src/modules/auth/auth.module.ts', '../accounts/accounts.module'],
  ['src/modules/credits/credits.module.ts', '../accounts/accounts.module'],
  ['src/modules/credits/credits.service.ts', '../accounts/accounts.repository'],
  ['src/modules/tools/tools.module.ts', '../catalog/tool-availability'],
  ['src/modules/capacity/capacity.service.ts', '../catalog/tools'],
  ['src/modules/webhooks/webhook-outbox.service.ts', '../catalog/tools'],
  ['src/modules/webhooks/worker/webhook-delivery.service.ts', '../../accounts/accounts.repository'],
  ['src/modules/uploads/uploads.service.ts', '../auth/access.decorator'],
  ['src/modules/admin/admin.service.ts', '../credits/credits.service'],
  ['src/modules/admin/admin.module.ts', '../auth/auth.module'],
  ['src/modules/jobs/jobs.module.ts', '../webhooks/webhook-outbox.service'],
  ['src/modules/jobs/worker/queue-workers.service.ts', '../../uploads/uploads.service'],
  ['src/modules/jobs/jobs.service.ts', '../tools/tools.module'],
  ['src/modules/accounts/accounts.service.ts', './accounts.repository'],
  ['src/modules/accounts/accounts.service.ts', '../../core/errors/domain-error'],
  ['src/modules/newcomer/newcomer.service.ts', './newcomer.repository'],
  ['src/modules/newcomer/newcomer.service.ts', '../../core/errors/domain-error'],
  // Between layers, down the list.
  ['src/engine/mask/cutout-mask.ts', '../raw-image'],
  ['src/engine/mask/cutout-mask.ts', './alpha-mask'],
  ['src/engine/pixel-engine.ts', './mask/alpha-mask'],
  ['src/engine/thread-pool-engine.ts', './pixel-engine'],
  ['src/engine/pixel-engine.spec.ts', './pixel-engine'],
  ['src/core/segmentation/local-segmenter.ts', '../../engine/mask/alpha-mask'],
  ['src/core/segmentation/local-segmenter.ts', '../../engine/thread-module'],
  ['src/core/image/pipeline.ts', '../../engine/raw-image'],
  ['src/modules/tools/shared/encode.ts', '../../../engine/pixel-engine'],
  ['src/modules/tools/image-editing/steps/crop.ts', '../../../../engine/raw-image'],
  ['src/modules/jobs/jobs.service.ts', '../../core/segmentation/local-segmenter'],
  ['src/app.module.ts', './modules/tools/tools.module'],
  ['src/cli/admin.ts', '../core/config/config.schema'],
  ['src/cli/admin.ts', '../engine/pixel-engine'],
];

let root;
let eslint;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'import-boundaries-'));
  for (const file of TARGETS) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), 'export const value = 1;\n');
  }
  eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, importBoundaries(root)],
  });
});

after(() => rmSync(root, { recursive: true, force: true }));

/** The boundary messages for one file that imports `specifier` (as a value and as a type). */
async function violations(file, specifier) {
  const code = [
    `import { value } from '${specifier}';`,
    `import type { value as v } from '${specifier}';`,
    'export const x = value;',
  ].join('\n');
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  const fatal = result.messages.filter((m) => m.fatal || !m.ruleId);
  assert.deepEqual(fatal, [], `${file} did not parse`);
  return result.messages.filter((m) => m.ruleId === 'boundaries/dependencies');
}

describe('import boundaries', () => {
  for (const [file, specifier] of FORBIDDEN) {
    test(`${file} must not import ${specifier}`, async () => {
      const found = await violations(file, specifier);
      assert.equal(
        found.length,
        2,
        `expected the value and the type import to be reported, got ${JSON.stringify(found)}`,
      );
    });
  }
  test('re-exports and dynamic imports of a sibling tool are reported too', async () => {
    const file = join(root, 'src/modules/tools/image-editing/runner.ts');
    const code = [
      `export { value } from '../background-removal/cutout.runner';`,
      `export const load = () => import('../generative/provider-failures');`,
    ].join('\n');
    const [result] = await eslint.lintText(code, { filePath: file });
    assert.equal(result.messages.filter((m) => m.ruleId === 'boundaries/dependencies').length, 2);
  });
  test('an upward import says which layers the importing file may use', async () => {
    const [found] = await violations('src/engine/mask/cutout-mask.ts', '../../core/segmentation/local-segmenter');
    assert.match(found.message, /the pixels layer may import nothing from another layer, never engine, core/);
    assert.match(found.message, /LAYERS in eslint\.config\.mjs/);
  });
  test('every folder the table names depends only on folders it names, with no circle', () => {
    for (const [module, allowed] of Object.entries(MODULE_DEPENDENCIES)) {
      for (const other of allowed) assert.ok(other in MODULE_DEPENDENCIES, `${module} lists ${other}`);
    }
    assert.throws(() => importBoundaries(root, { a: ['b'], b: ['c'], c: ['a'] }), /circle: a -> b -> c -> a/);
    assert.throws(() => importBoundaries(root, { a: ['missing'] }), /no module/);
  });
  for (const [file, specifier] of ALLOWED) {
    test(`${file} may import ${specifier}`, async () => {
      assert.deepEqual(await violations(file, specifier), []);
    });
  }
});
