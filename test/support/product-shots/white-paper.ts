import type { Rgb } from '../image-fixtures';
import { contactShadow } from './shadow';
import { pick, type BackdropLayer, type Stage } from './stage';
import { linear, svgDocument, tone } from './svg';

/**
 * White paper for a white product: every level between 235 and 255, no vignette, and a faint
 * contact shadow as the only thing between them. A whiter version of the 'light' backdrop.
 */
export function whitePaper(stage: Stage): BackdropLayer {
  const paper = pick(
    [
      [248, 248, 246],
      [246, 245, 242],
      [250, 250, 250],
      [247, 246, 240],
    ] as Rgb[],
    stage.next,
  );
  return {
    svg: svgDocument(
      stage.width,
      stage.height,
      `<defs>${linear(
        'paper',
        [0, 0, 0, 1],
        [
          [0, tone(paper, -0.035)],
          [0.6, paper],
          [1, tone(paper, 0.5)],
        ],
      )}</defs><rect width="100%" height="100%" fill="url(#paper)"/>` + contactShadow(stage, 0.2),
    ),
  };
}
