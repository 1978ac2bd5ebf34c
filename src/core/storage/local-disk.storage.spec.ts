import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDiskStorage } from './local-disk.storage';
import { InvalidStorageKeyError, type StoredFile } from './result-storage';

const KEY = 'results/0b6f3c1e-0e0c-4a3e-9f1a-2c3d4e5f6a7b/5a1b2c3d.png';

async function readAll(file: StoredFile): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Every file below `folder`, relative to it, hidden ones included. */
async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1));
}

describe(LocalDiskStorage.name, () => {
  let root: string;
  let storage: LocalDiskStorage;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'local-disk-storage-'));
    storage = new LocalDiskStorage({ STORAGE_DIR: root });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('stores, opens and deletes a file, creating folders as needed', async () => {
    const bytes = Buffer.from('not really a png, but bytes are bytes');
    await storage.put(KEY, bytes, 'image/png');
    expect(await readFile(join(root, ...KEY.split('/')))).toEqual(bytes);

    const file = await storage.open(KEY);
    expect(file).not.toBeNull();
    expect(file?.contentType).toBe('image/png');
    expect(file?.size).toBe(bytes.length);
    expect(await readAll(file as StoredFile)).toEqual(bytes);

    await storage.delete(KEY);
    expect(await storage.open(KEY)).toBeNull();
  });

  it('leaves no file, temporary or final, when the write is aborted at any point before its rename', async () => {
    const bytes = Buffer.alloc(4 * 1024 * 1024, 7);
    const aborted = new AbortController();
    aborted.abort();
    await expect(storage.put(KEY, bytes, 'image/png', aborted.signal)).rejects.toThrow();
    // Aborted after each of the write's first steps: the put either rejects leaving nothing, or
    // (past the rename) stores the whole file.
    for (let ticks = 0; ticks < 12; ticks++) {
      const controller = new AbortController();
      const put = storage.put(KEY, bytes, 'image/png', controller.signal);
      for (let tick = 0; tick < ticks; tick++) await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      const stored = await put.then(
        () => true,
        () => false,
      );
      const files = (await listFiles(root).catch(() => [])).filter((file) => file.endsWith('.tmp'));
      expect(files).toEqual([]);
      if (stored) expect(await readFile(join(root, ...KEY.split('/')))).toEqual(bytes);
      else expect(await storage.open(KEY)).toBeNull();
      await storage.delete(KEY);
    }
  });

  it.each([
    ['a.png', 'image/png'],
    ['a.jpg', 'image/jpeg'],
    ['a.jpeg', 'image/jpeg'],
    ['a.thumb.webp', 'image/webp'],
    ['A.PNG', 'image/png'],
  ])('derives the content type of %s from its extension', async (key, contentType) => {
    await storage.put(key, Buffer.from('x'), `${contentType.toUpperCase()}; charset=binary`);
    const file = await storage.open(key);
    expect(file?.contentType).toBe(contentType);
    await readAll(file as StoredFile);
  });

  it('refuses a content type that disagrees with the extension', async () => {
    await expect(storage.put('a.png', Buffer.from('x'), 'image/webp')).rejects.toThrow(/does not match/);
    expect(await listFiles(root)).toEqual([]);
  });

  it('refuses an extension it cannot serve', async () => {
    await expect(storage.put('a.html', Buffer.from('x'), 'text/html')).rejects.toThrow(InvalidStorageKeyError);
  });

  it('replaces a file whole and leaves no temporary files', async () => {
    await storage.put(KEY, Buffer.alloc(64 * 1024, 1), 'image/png');
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => storage.put(KEY, Buffer.alloc(64 * 1024 + i, i + 2), 'image/png')),
    );
    const stored = await readFile(join(root, ...KEY.split('/')));
    // Whichever writer won, its file is complete: one fill byte, and that writer's length.
    const writer = stored[0] - 2;
    expect(stored.length).toBe(64 * 1024 + writer);
    expect(stored.every((byte) => byte === writer + 2)).toBe(true);
    expect(await listFiles(root)).toEqual([KEY]);
  });

  it('keeps a reader on the file it opened while the key is replaced', async () => {
    await storage.put(KEY, Buffer.alloc(1000, 1), 'image/png');
    const file = (await storage.open(KEY)) as StoredFile;
    await storage.put(KEY, Buffer.alloc(10, 2), 'image/png');
    const bytes = await readAll(file);
    expect(bytes.length).toBe(file.size);
    expect(bytes.equals(Buffer.alloc(1000, 1))).toBe(true);
  });

  it('answers null for a missing key, a folder, or a path through a file', async () => {
    await storage.put('results/job/a.png', Buffer.from('x'), 'image/png');
    expect(await storage.open('results/job/b.png')).toBeNull();
    expect(await storage.open('results/job/a.png/c.png')).toBeNull();
    // A folder whose name looks like a file.
    await storage.put('results/dir.png/a.png', Buffer.from('x'), 'image/png');
    expect(await storage.open('results/dir.png')).toBeNull();
  });

  it('deletes a missing key without complaint', async () => {
    await expect(storage.delete('results/none/a.png')).resolves.toBeUndefined();
  });

  it.each([
    '',
    '/etc/passwd.png',
    '../outside.png',
    'results/../../outside.png',
    'results/..png',
    'results/a..b.png',
    'results//a.png',
    'results/./a.png',
    'results/.hidden.png',
    'results/a.png/',
    'results\\a.png',
    'results/a b.png',
    'results/a%2F.png',
    'results/ä.png',
    'results/a.png\u0000',
    `results/${'a'.repeat(600)}.png`,
  ])('refuses the key %j in every method', async (key) => {
    await expect(storage.put(key, Buffer.from('x'), 'image/png')).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage.open(key)).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage.delete(key)).rejects.toThrow(InvalidStorageKeyError);
    expect(await listFiles(root)).toEqual([]);
  });

  it('normalises STORAGE_DIR', async () => {
    const relative = new LocalDiskStorage({ STORAGE_DIR: join(root, 'nested', '..', 'store') });
    await relative.put('a.png', Buffer.from('x'), 'image/png');
    expect((await stat(join(root, 'store', 'a.png'))).isFile()).toBe(true);
  });

  it('never serves its own hidden temporary files', async () => {
    await writeFile(join(root, '.a.png.0123456789ab.tmp'), 'half');
    await expect(storage.open('.a.png.0123456789ab.tmp')).rejects.toThrow(InvalidStorageKeyError);
  });
});
