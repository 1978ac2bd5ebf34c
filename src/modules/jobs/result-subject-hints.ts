import { NO_HINTS, type SubjectHints } from '../../engine/mask/subject-hints';

/**
 * A source image's subject hints as the client sent them (snake_case), stored with each of its results and shown back.
 */
export interface StoredSubjectHints {
  region?: { left: number; top: number; right: number; bottom: number } | null;
  keep_points?: Array<{ x: number; y: number }> | null;
}

/** The hints as the segmenter takes them; a result whose client sent none has none. */
export function subjectHintsOf(stored: StoredSubjectHints | null): SubjectHints {
  if (!stored) return NO_HINTS;
  const { region } = stored;
  return {
    region: region ? { left: region.left, top: region.top, right: region.right, bottom: region.bottom } : null,
    keepPoints: (stored.keep_points ?? []).map(({ x, y }) => ({ x, y })),
  };
}
