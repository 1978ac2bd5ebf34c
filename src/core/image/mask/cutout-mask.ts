import type { ProbabilityMap } from '../../segmentation/probability-map';
import { fromRaw, type RawImage } from '../raw-image';
import { refineAlpha } from './guided-filter';
import { NO_HINTS, type Cutout, type SubjectHints } from './subject-hints';
import { selectSubject } from './subject-selection';

/**
 * The model's probability map (at the model's input size, the photo squashed to it) turned into
 * the photo's cut-out: the subject chosen and its holes settled at the map's size, where it is
 * cheap, then the map brought to the photo's size along the photo's own edges.
 */
export async function maskFromProbability(map: ProbabilityMap, image: RawImage, hints: SubjectHints = NO_HINTS): Promise<Cutout> {
  const photo = await fromRaw(image).removeAlpha().resize(map.width, map.height, { fit: 'fill' }).raw().toBuffer();
  const selection = selectSubject(map, photo, hints);
  return { mask: await refineAlpha(selection.map, image), uncertainty: selection.uncertainty };
}
