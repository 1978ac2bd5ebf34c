import type { Rgb } from '../image-fixtures';
import { clutter } from './clutter';
import { contactShadow } from './shadow';
import { pick, type Backdrop, type BackdropLayer, type Stage } from './stage';
import { tabletop } from './tabletop';
import { BLACK, linear, mix, radial, svgDocument, tone } from './svg';

export type { Backdrop, Stage } from './stage';

/** A darkening towards the corners, as lenses and falling-off light give. */
const vignette = (id: string, strength: number) =>
  radial(
    id,
    [0.5, 0.5, 0.75],
    [
      [0, BLACK, 0],
      [0.55, BLACK, 0.04 * strength],
      [1, BLACK, 0.3 * strength],
    ],
  );

function studio(stage: Stage): BackdropLayer {
  const paper: Rgb = mix(
    [226, 226, 228],
    pick(
      [
        [232, 226, 216],
        [214, 222, 232],
        [226, 226, 226],
      ] as Rgb[],
      stage.next,
    ),
    0.5,
  );
  return {
    svg: svgDocument(
      stage.width,
      stage.height,
      `<defs>${linear(
        'paper',
        [0, 0, 0, 1],
        [
          [0, tone(paper, -0.14)],
          [0.55, paper],
          [1, tone(paper, 0.25)],
        ],
      )}${vignette('vignette', 1)}</defs>` +
        `<rect width="100%" height="100%" fill="url(#paper)"/>` +
        `<rect width="100%" height="100%" fill="url(#vignette)"/>` +
        (stage.props ?? '') +
        contactShadow(stage, 1),
    ),
  };
}

const GRADIENT_PAIRS: readonly [Rgb, Rgb][] = [
  [
    [32, 118, 160],
    [244, 200, 150],
  ],
  [
    [112, 52, 150],
    [250, 150, 96],
  ],
  [
    [24, 36, 70],
    [120, 170, 210],
  ],
  [
    [226, 110, 136],
    [250, 232, 170],
  ],
  [
    [40, 130, 90],
    [210, 232, 120],
  ],
];

function gradient(stage: Stage): BackdropLayer {
  const [from, to] = pick(GRADIENT_PAIRS, stage.next);
  const angle = stage.next() * 2 * Math.PI;
  const dx = 0.5 * Math.cos(angle);
  const dy = 0.5 * Math.sin(angle);
  return {
    svg: svgDocument(
      stage.width,
      stage.height,
      `<defs>${linear(
        'sweep',
        [0.5 - dx, 0.5 - dy, 0.5 + dx, 0.5 + dy],
        [
          [0, from],
          [1, to],
        ],
      )}${vignette('vignette', 0.5)}</defs>` +
        `<rect width="100%" height="100%" fill="url(#sweep)"/>` +
        `<rect width="100%" height="100%" fill="url(#vignette)"/>` +
        (stage.props ?? '') +
        contactShadow(stage, 0.8),
    ),
  };
}

/** A backdrop within about 35 levels of the product's own body colour. */
function similar(stage: Stage): BackdropLayer {
  const body = stage.palette.body;
  const luma = 0.3 * body[0] + 0.59 * body[1] + 0.11 * body[2];
  const direction = luma < 128 ? 1 : -1;
  const jitter = () => (stage.next() - 0.5) * 10;
  const centre: Rgb = [
    body[0] + 20 * direction + jitter(),
    body[1] + 20 * direction + jitter(),
    body[2] + 20 * direction + jitter(),
  ];
  const shift = (k: number): Rgb => [centre[0] + k, centre[1] + k, centre[2] + k];
  return {
    svg: svgDocument(
      stage.width,
      stage.height,
      `<defs>${linear(
        'wash',
        [0, 0, 0.4, 1],
        [
          [0, shift(8)],
          [1, shift(-8)],
        ],
      )}</defs><rect width="100%" height="100%" fill="url(#wash)"/>` + contactShadow(stage, 0.5),
    ),
  };
}

function light(stage: Stage): BackdropLayer {
  const paper = pick(
    [
      [242, 240, 235],
      [244, 242, 240],
      [240, 238, 230],
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
          [0, tone(paper, -0.03)],
          [0.6, paper],
          [1, tone(paper, 0.3)],
        ],
      )}${vignette('vignette', 0.35)}</defs>` +
        `<rect width="100%" height="100%" fill="url(#paper)"/>` +
        `<rect width="100%" height="100%" fill="url(#vignette)"/>` +
        (stage.props ?? '') +
        contactShadow(stage, 0.6),
    ),
  };
}

export const BACKDROP_PAINTERS: Record<Backdrop, (stage: Stage) => BackdropLayer> = {
  studio,
  gradient,
  tabletop,
  clutter,
  similar,
  light,
};
