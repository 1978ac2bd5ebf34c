import sharp from 'sharp';
import { LIBVIPS_CHOSEN, libvipsState, withLibvipsThreads } from '../../test/support/libvips-state';
import { ThreadPoolEngine } from './thread-pool-engine';

describe('libvips settings', () => {
  it('turns the operation cache off and sets the threads per pipeline', async () => {
    sharp.cache(true);
    await withLibvipsThreads(3, () => {
      expect(libvipsState()).toEqual(LIBVIPS_CHOSEN(3));
    });
  });

  it("are the process's again once a thread of the engine has loaded sharp", async () => {
    // Loading sharp turns the cache on (and, on glibc without MALLOC_ARENA_MAX, sets one thread
    // per pipeline) for the whole process: the thread applies the process's choice after it.
    await withLibvipsThreads(3, async () => {
      const engine = new ThreadPoolEngine({ threads: 1, niceIncrement: 0 });
      try {
        const image = { data: Buffer.alloc(4 * 4 * 3, 200), width: 4, height: 4, channels: 3 as const };
        const joined = await engine.run('withAlpha', [image, Buffer.alloc(16, 255)]);
        expect(joined.channels).toBe(4);
        expect(libvipsState()).toEqual(LIBVIPS_CHOSEN(3));
      } finally {
        await engine.close();
      }
    });
  });
});
