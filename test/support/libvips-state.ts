import sharp from 'sharp';
import { applyLibvipsSettings, chosenLibvipsSettings } from '../../src/engine/libvips-settings';

/** What libvips runs with now, process-wide: its operation cache's limits (all 0 when off) and threads per pipeline. */
export function libvipsState(): { cache: { memory: number; files: number; items: number }; pipelineThreads: number } {
  const { memory, files, items } = sharp.cache();
  return { cache: { memory: memory.max, files: files.max, items: items.max }, pipelineThreads: sharp.concurrency() };
}

/** libvips' state with the cache off and `pipelineThreads` threads per pipeline. */
export const LIBVIPS_CHOSEN = (pipelineThreads: number) => ({
  cache: { memory: 0, files: 0, items: 0 },
  pipelineThreads,
});

/** Runs `check` with `pipelineThreads` chosen for the process, then puts back the settings and threads it found. */
export async function withLibvipsThreads(pipelineThreads: number, check: () => Promise<void> | void): Promise<void> {
  const found = { settings: chosenLibvipsSettings(), threads: sharp.concurrency() };
  applyLibvipsSettings({ pipelineThreads });
  try {
    await check();
  } finally {
    applyLibvipsSettings(found.settings);
    sharp.concurrency(found.threads);
  }
}
