import { BLACK, WHITE, hex, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/**
 * A balloon whisk standing on its handle, seen from the side and a little above: nested loops of
 * thin wire (the backdrop shows between them), a metal ferrule, and a grip with a hanging hole.
 */

/** One wire loop leaving the ferrule, half as wide as `half`, its crown at `top`, leaning by `lean`. */
const loop = (half: number, top: number, lean: number) =>
  `M174,612 C${180 - half * 1.3},470 ${180 - half * 1.05 + lean},${top} ${180 + lean},${top} ` +
  `C${180 + half * 1.05 + lean},${top} ${180 + half * 1.3},470 186,612`;
const LOOPS: readonly [number, number, number][] = [
  [150, 14, 0],
  [128, 20, 6],
  [98, 28, -5],
  [64, 34, 8],
  [28, 38, -4],
];
const GRIP = 'M160,660 L200,660 L210,960 Q210,996 180,996 Q150,996 150,960 Z';
const HOLE = 'M180,942 m-10,0 a10,10 0 1 0 20,0 a10,10 0 1 0 -20,0 Z';

function draw(p: Palette): string {
  const wires = LOOPS.map(
    ([half, top, lean]) => `<path d="${loop(half, top, lean)}" stroke="url(#wire)" stroke-width="6" fill="none"/>`,
  ).join('');
  const glints = LOOPS.map(
    ([half, top, lean]) =>
      `<path d="${loop(half, top, lean)}" stroke="#fff" stroke-width="2" opacity="0.35" fill="none" ` +
      `transform="translate(-1.5 0)"/>`,
  ).join('');
  return `
  <defs>
    ${linear(
      'wire',
      [0, 0, 1, 0],
      [
        [0, tone(p.trim, -0.35)],
        [0.3, tone(p.trim, 0.35)],
        [0.7, p.trim],
        [1, tone(p.trim, -0.4)],
      ],
    )}
    ${linear(
      'ferrule',
      [0, 0, 1, 0],
      [
        [0, tone(p.accent, -0.4)],
        [0.3, tone(p.accent, 0.45)],
        [1, tone(p.accent, -0.45)],
      ],
    )}
    ${linear(
      'grip',
      [0, 0, 1, 0],
      [
        [0, BLACK, 0.35],
        [0.3, WHITE, 0.18],
        [0.6, BLACK, 0],
        [1, BLACK, 0.4],
      ],
    )}
  </defs>
  <g transform="translate(-44 -11)">
  ${wires}
  ${glints}
  <path d="M166,600 L194,600 L204,664 L156,664 Z" fill="url(#ferrule)"/>
  <path d="${GRIP} ${HOLE}" fill="${hex(p.body)}" fill-rule="evenodd"/>
  <path d="${GRIP} ${HOLE}" fill="url(#grip)" fill-rule="evenodd"/>
  </g>`;
}

export const whisk: ProductDrawing = {
  width: 272,
  height: 985,
  footprint: [0.38, 0.62, 0.01],
  colours: { body: [176, 40, 44], trim: [196, 198, 204], accent: [180, 182, 188], detail: [40, 40, 44] },
  light: { body: [240, 238, 234], trim: [214, 216, 220], accent: [208, 210, 214], detail: [230, 230, 230] },
  draw,
};
