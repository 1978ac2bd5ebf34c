import { planGeometry } from '../../../core/image/geometry';
import { decodeScaled } from '../../../core/image/pipeline-steps';
import type { Size } from '../../../engine/raw-image';
import { undecodableMessage, type SourceImage } from '../../../core/image/source-image';
import { WHITE } from '../../../engine/compose/colour';
import type { Backdrop } from '../../../engine/compose/backdrop';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import type { BackdropRequest } from './cutout-style';
import type { PipelineLimits } from './pipeline-limits';

/** A result's background photo by its URL: SourceLoader.loadBackdrop, bound to the result's job and account. */
export type BackdropSource = (url: string, signal: AbortSignal) => Promise<SourceImage>;

/**
 * The engine's backdrop for a request: a blur as asked, or the photo loaded and decoded (oriented,
 * sRGB, transparency on white) no larger than it needs to be to cover `box`, the most the result
 * can show of it; the engine fits it to the result's exact size.
 */
export async function loadedBackdrop(
  request: BackdropRequest | null,
  box: Size,
  load: BackdropSource | undefined,
  limits: PipelineLimits,
): Promise<Backdrop | null> {
  if (!request) return null;
  if (request.kind === 'blur') return request;
  if (!load) throw new Error('A background photo needs a loader');
  const source = await load(request.url, limits.signal);
  const factor = Math.min(1, Math.max(box.width / source.width, box.height / source.height));
  const plan = planGeometry(source, { width: Math.max(1, Math.ceil(source.width * factor)), upscale: false });
  const image = await decodeScaled(source, plan, {
    maxPixels: limits.maxPixels,
    flattenOnto: WHITE,
    timeoutSeconds: limits.timeoutSeconds,
  }).catch((error: unknown) => {
    limits.signal.throwIfAborted();
    throw new ResultFailure(ResultErrorCode.BackgroundNotImage, undecodableMessage('The background image'), {
      cause: error,
    });
  });
  return { kind: 'photo', image, fit: request.fit, pad: request.pad };
}
