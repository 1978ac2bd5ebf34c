import sharp from 'sharp';

export interface LibvipsSettings {
  /** libvips threads per image pipeline; null leaves sharp's own choice. */
  pipelineThreads: number | null;
}

/** What the process chose, for the worker threads it starts (`threadModule` hands it to them). */
let chosen: LibvipsSettings = { pipelineThreads: null };

/**
 * libvips' settings are process-wide, and sharp sets them again whenever a thread loads it: its
 * module turns libvips' operation cache on (100 operations, 50 MB) and, on glibc without jemalloc
 * or MALLOC_ARENA_MAX, sets one thread per pipeline. So the main thread applies the process's
 * choice at start and keeps it here, and every worker thread applies it again once it has loaded
 * sharp (`applyParentLibvipsSettings`).
 *
 * The cache stays off: every source is a new image, so it would only hold memory never hit again,
 * and it knows an input buffer by its address, which a later buffer can take.
 */
export function applyLibvipsSettings(settings: LibvipsSettings): void {
  chosen = settings;
  if (settings.pipelineThreads !== null) sharp.concurrency(settings.pipelineThreads);
  sharp.cache(false);
}

/** The settings this thread applied last, to hand to a thread it starts. */
export const chosenLibvipsSettings = (): LibvipsSettings => chosen;
