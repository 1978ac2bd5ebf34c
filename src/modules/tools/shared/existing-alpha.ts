import type { RawImage } from '../../../engine/raw-image';
import type { SegmentationReport } from '../../../engine/mask/segmentation-report';
import type { SourceImage } from '../../../core/image/source-image';
import { CLEARLY_OPAQUE, CLEARLY_TRANSPARENT, MEANINGFUL_SHARE } from '../../../engine/mask/existing-alpha';
import type { Cutout } from '../../../engine/mask/subject-hints';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import type { PipelineLimits } from './pipeline-limits';

/** What made the mask of a source that is its own: its alpha, neither a model nor our post-processing. */
export const SOURCE_ALPHA_SEGMENTATION: SegmentationReport = {
  model: 'source_alpha',
  version: null,
  postProcessingVersion: null,
};

const percent = (share: number) => `${share * 100} %`;

/** Why a source cannot be its own mask: not retried, since the same file would fail again; its credits are released. */
export const notTransparent = (what: string) =>
  new ResultFailure(
    ResultErrorCode.SourceNotTransparent,
    `existing_alpha use needs a source with meaningful transparency (at least ${percent(MEANINGFUL_SHARE)} of its ` +
      `pixels with alpha <= ${CLEARLY_TRANSPARENT} and at least ${percent(MEANINGFUL_SHARE)} with alpha >= ` +
      `${CLEARLY_OPAQUE}); ${what}. The result was not charged.`,
  );

/** A source whose header says it has no alpha channel fails before its pixels are decoded. */
export function requireAlphaChannel(source: SourceImage): void {
  if (!source.hasAlpha) throw notTransparent('this source has no alpha channel');
}

/**
 * The decoded source (RGBA, transparency kept) as its own cut-out: its colours (white where fully transparent) and its
 * alpha as the mask, which nothing is unsure of.
 */
export async function ownCutout(image: RawImage, limits: PipelineLimits): Promise<{ photo: RawImage; cutout: Cutout }> {
  const own = await limits.engine.run('existingCutout', [image], [image]);
  if (!own) throw notTransparent("this source's alpha has too few clearly transparent or clearly opaque pixels");
  return { photo: own.photo, cutout: { mask: own.mask, uncertainty: 0, segmentation: SOURCE_ALPHA_SEGMENTATION } };
}
