// The install guard of package.json: `allowScripts` denies onnxruntime-node's install script,
// which would otherwise fetch CUDA libraries from outside the npm registry (api.nuget.org); the
// CPU build the service uses ships in the package. Checked by installing onnxruntime-node, at the
// lockfile's version and from the npm cache that `npm ci` filled, into a temporary project with
// this project's `allowScripts`, behind a proxy that refuses every connection. Also: npm reads
// no project setting it does not know (it warns on every command about those). Runs with Node's
// test runner (`npm run lint:boundaries`, part of `npm run lint`) in a few seconds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import process from 'node:process';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGE = 'onnxruntime-node';
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8'));

/** npm's environment without what `npm run` passes down, and with every download refused. */
function npmEnv() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const refused = 'http://127.0.0.1:9';
  // GLOBAL_AGENT_*: the proxy onnxruntime-node's script downloads through.
  return { ...env, HTTPS_PROXY: refused, HTTP_PROXY: refused, GLOBAL_AGENT_HTTPS_PROXY: refused, NO_PROXY: '' };
}

/** The lockfile entries of a package and everything it depends on, at the paths they have here. */
function lockedTree(name) {
  const entries = {};
  const visit = (from, dependency) => {
    // Node's resolution: the nearest node_modules folder up from the dependent package.
    for (let base = from; ; base = base.slice(0, base.lastIndexOf('/node_modules/'))) {
      const path = `${base ? `${base}/` : ''}node_modules/${dependency}`;
      if (lock.packages[path]) {
        if (!entries[path]) {
          entries[path] = lock.packages[path];
          for (const next of Object.keys(lock.packages[path].dependencies ?? {})) visit(path, next);
        }
        return;
      }
      if (!base) throw new Error(`${dependency} (needed by ${from || 'the project'}) is not in package-lock.json`);
    }
  };
  visit('', name);
  return entries;
}

function installInto(allowScripts) {
  const dir = mkdtempSync(join(tmpdir(), 'imgjobs-install-guard-'));
  const tree = lockedTree(PACKAGE);
  const version = tree[`node_modules/${PACKAGE}`].version;
  const project = { name: 'install-guard', version: '1.0.0', private: true, dependencies: { [PACKAGE]: version } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...project, allowScripts }, null, 2));
  const root = { name: project.name, version: project.version, dependencies: project.dependencies };
  const lockfile = { ...project, lockfileVersion: 3, requires: true, packages: { '': root, ...tree } };
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lockfile, null, 2));
  const npm = spawnSync(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--foreground-scripts', '--loglevel=warn'],
    { cwd: dir, env: npmEnv(), encoding: 'utf8', timeout: 60_000 },
  );
  return { dir, status: npm.status, output: `${npm.stdout}${npm.stderr}` };
}

/** Every file under a folder, relative paths. */
const filesUnder = (folder) =>
  existsSync(folder) ? readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : [];

describe('install guard', () => {
  const folders = [];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  test(`package.json denies ${PACKAGE}'s install script`, () => {
    assert.equal(manifest.allowScripts?.[PACKAGE], false);
  });

  test(`${PACKAGE} installs offline with this project's allowScripts, without its script or CUDA libraries`, () => {
    const install = installInto(manifest.allowScripts);
    folders.push(install.dir);
    assert.equal(install.status, 0, install.output);
    assert.doesNotMatch(install.output, /Unknown (project|user|global|builtin|env) config/);
    const binaries = filesUnder(join(install.dir, 'node_modules', PACKAGE, 'bin')).map((e) => e.name);
    assert.ok(binaries.includes('onnxruntime_binding.node') || process.platform !== 'linux', binaries.join(', '));
    assert.deepEqual(
      binaries.filter((name) => /providers_(cuda|tensorrt)/.test(name)),
      [],
    );
  });

  test('without the denial the same install runs the script, whose download the proxy refuses', (t) => {
    if (`${process.platform}/${process.arch}` !== 'linux/x64') return t.skip('CUDA libraries only exist for linux/x64');
    const install = installInto({ ...manifest.allowScripts, [PACKAGE]: true });
    folders.push(install.dir);
    assert.notEqual(install.status, 0, install.output);
    assert.match(install.output, new RegExp(`${PACKAGE}@[^ ]+ postinstall[\\s\\S]*ECONNREFUSED 127\\.0\\.0\\.1:9`));
  });

  test('npm knows every setting of the project (it warns on each command about the others)', () => {
    const npm = spawnSync('npm', ['config', 'get', 'registry'], { cwd: REPO, env: npmEnv(), encoding: 'utf8' });
    assert.equal(npm.status, 0, npm.stderr);
    assert.doesNotMatch(npm.stderr, /Unknown .*config/);
  });
});
