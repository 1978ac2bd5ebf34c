import type { ProbabilityMap } from '../../segmentation/probability-map';
import type { RawImage } from '../raw-image';
import type { AlphaMask } from './alpha-mask';
import { refineAlpha } from './guided-filter';
import { selectSubject } from './subject-selection';

/**
 * The model's probability map (at the model's input size, the photo squashed to it) turned into
 * the photo's cut-out mask: the subject chosen and its holes settled at the map's size, where it
 * is cheap, then the map brought to the photo's size along the photo's own edges.
 */
export async function maskFromProbability(map: ProbabilityMap, image: RawImage): Promise<AlphaMask> {
  return refineAlpha(selectSubject(map), image);
}
