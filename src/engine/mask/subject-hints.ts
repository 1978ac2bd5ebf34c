import type { SegmentationReport } from './segmentation-report';
import type { AlphaMask } from './alpha-mask';

/**
 * What a client knows of where its product is, in fractions of the image's width and height
 * (0 the left or top edge, 1 the right or bottom edge), so a hint means the same at whatever
 * size the photo is decoded and segmented.
 */
export interface SubjectRegion {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface SubjectPoint {
  x: number;
  y: number;
}

export interface SubjectHints {
  /** The product lies inside this box; everything outside it is background (remove.bg's `roi`). */
  region: SubjectRegion | null;
  /** The product is under each of these points. */
  keepPoints: readonly SubjectPoint[];
}

export const NO_HINTS: SubjectHints = { region: null, keepPoints: [] };

/** More keep points than this say nothing a region would not, and each costs a pass over the mask. */
export const MAX_KEEP_POINTS = 10;

export const hasHints = (hints: SubjectHints): boolean => hints.region !== null || hints.keepPoints.length > 0;

/**
 * A subject's mask with how sure the segmenter is of it: 0 sure, 1 unsure. Clients send
 * unsure cut-outs to a person; the score ranks cut-outs, it is not a probability of error.
 */
export interface SubjectMask {
  mask: AlphaMask;
  uncertainty: number;
}

/** A segmenter's answer: the subject's mask, and which model and post-processing made it. */
export interface Cutout extends SubjectMask {
  segmentation: SegmentationReport;
}
