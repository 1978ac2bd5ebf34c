import sharp from 'sharp';
import { applyLibvipsSettings, chosenLibvipsSettings } from './libvips-settings';
import { ThreadPoolEngine } from './thread-pool-engine';

/** The limits of libvips' operation cache: all zero when it is off. */
const cacheLimits = () => {
  const { memory, files, items } = sharp.cache();
  return { memory: memory.max, files: files.max, items: items.max };
};
const CACHE_OFF = { memory: 0, files: 0, items: 0 };

describe('libvips settings', () => {
  const before = { concurrency: sharp.concurrency(), settings: chosenLibvipsSettings() };

  afterEach(() => {
    applyLibvipsSettings(before.settings);
    sharp.concurrency(before.concurrency);
  });

  it('turns the operation cache off and sets the threads per pipeline', () => {
    sharp.cache(true);
    applyLibvipsSettings({ pipelineThreads: 3 });
    expect(cacheLimits()).toEqual(CACHE_OFF);
    expect(sharp.concurrency()).toBe(3);
  });

  it("are the process's again once a thread of the engine has loaded sharp", async () => {
    // Loading sharp turns the cache on (and, on glibc without MALLOC_ARENA_MAX, sets one thread
    // per pipeline) for the whole process: the thread applies the process's choice after it.
    applyLibvipsSettings({ pipelineThreads: 3 });
    const engine = new ThreadPoolEngine({ threads: 1, niceIncrement: 0 });
    try {
      const image = { data: Buffer.alloc(4 * 4 * 3, 200), width: 4, height: 4, channels: 3 as const };
      const joined = await engine.run('withAlpha', [image, Buffer.alloc(16, 255)]);
      expect(joined.channels).toBe(4);
      expect(cacheLimits()).toEqual(CACHE_OFF);
      expect(sharp.concurrency()).toBe(3);
    } finally {
      await engine.close();
    }
  });
});
