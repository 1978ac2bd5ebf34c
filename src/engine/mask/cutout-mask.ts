import type { ProbabilityMap } from './probability-map';
import type { RawImage } from '../raw-image';
import { refineAlpha } from './guided-filter';
import { NO_HINTS, type SubjectHints, type SubjectMask } from './subject-hints';
import { selectSubject } from './subject-selection';

/**
 * The model's probability map (at the model's input size, the photo squashed to it) turned into
 * the photo's cut-out: the subject chosen and its holes settled at the map's size, where it is
 * cheap, then the map brought to the photo's size along the photo's own edges. `mapPhoto` is
 * the photo at the map's size (RGB), as the model saw it, for the selection's colour cues.
 */
export async function maskFromProbability(
  map: ProbabilityMap,
  mapPhoto: Buffer,
  image: RawImage,
  hints: SubjectHints = NO_HINTS,
): Promise<SubjectMask> {
  const selection = selectSubject(map, mapPhoto, hints);
  return { mask: await refineAlpha(selection.map, image), uncertainty: selection.uncertainty };
}
