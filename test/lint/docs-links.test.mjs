// The documents by audience (README.md, BENCHMARKS.md and docs/*.md) link to each other and to files of the
// repository: every relative link must reach an existing file and, for a Markdown file, an
// existing heading (GitHub's anchors); and no document may cite a path outside the repository.
// Runs with Node's test runner (`npm run lint:boundaries`, part of `npm run lint`).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCUMENTS = [
  'README.md',
  'BENCHMARKS.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The document's lines outside fenced code blocks. */
function prose(text) {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchors for a Markdown file's headings (duplicates get -1, -2, ...). */
function anchors(file) {
  const seen = new Map();
  const result = new Set();
  for (const line of prose(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** The relative links of a document: [text](target), skipping URLs with a scheme. */
function links(document) {
  const found = [];
  for (const line of prose(readFileSync(join(REPO, document), 'utf8'))) {
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      found.push(target);
    }
  }
  return found;
}

describe('documentation links', () => {
  for (const document of DOCUMENTS) {
    test(`${document}: every relative link reaches a file of the repository`, () => {
      const broken = [];
      for (const target of links(document)) {
        const [path, anchor] = target.split('#');
        const file = path === '' ? join(REPO, document) : resolve(REPO, dirname(document), path);
        if (relative(REPO, file).startsWith('..') || !existsSync(file)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)) {
          broken.push(`${target}: no such heading in ${relative(REPO, file)}`);
        }
      }
      assert.deepEqual(broken, []);
    });
  }

  test('no document cites a path outside the repository', () => {
    const outside = [];
    for (const document of DOCUMENTS) {
      readFileSync(join(REPO, document), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (/(^|[\s`'"(])(\/work\/|\/tmp\/|\/home\/|\.\.\/shared\b|\.\.\/\.\.\/)/.test(line)) {
            outside.push(`${document}:${index + 1}: ${line.trim()}`);
          }
        });
    }
    assert.deepEqual(outside, []);
  });
});
