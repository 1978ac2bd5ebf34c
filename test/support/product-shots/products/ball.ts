import { BLACK, WHITE, glow, hex, highlight, radial, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/** A glossy ball with two curved stripes and seams, lit from the upper left. */
function draw(p: Palette): string {
  const band = (sign: number) => {
    const x = (value: number) => 300 + sign * value;
    return (
      `M${x(-180)},40 C${x(60)},170 ${x(60)},430 ${x(-180)},560 ` +
      `L${x(-110)},585 C${x(150)},440 ${x(150)},160 ${x(-110)},15 Z`
    );
  };
  return `
  <defs>
    <clipPath id="ball"><circle cx="300" cy="300" r="300"/></clipPath>
    ${radial(
      'shape',
      [0.5, 0.5, 0.5, 0.34, 0.28],
      [
        [0, WHITE, 0.25],
        [0.35, BLACK, 0],
        [0.8, BLACK, 0.35],
        [1, BLACK, 0.65],
      ],
    )}
    ${radial(
      'bounce',
      [0.62, 0.95, 0.45],
      [
        [0, WHITE, 0.22],
        [1, WHITE, 0],
      ],
    )}
    ${glow()}
    ${radial(
      'glint',
      [0.5, 0.5, 0.5],
      [
        [0, WHITE, 0.95],
        [0.6, WHITE, 0.85],
        [1, WHITE, 0],
      ],
    )}
  </defs>
  <circle cx="300" cy="300" r="300" fill="${hex(p.body)}"/>
  <g clip-path="url(#ball)">
    <path d="${band(1)}" fill="${hex(p.accent)}"/>
    <path d="${band(-1)}" fill="${hex(p.accent)}"/>
    <path d="M0,300 C150,360 450,360 600,300" stroke="${hex(tone(p.body, -0.55))}" stroke-width="5" fill="none"/>
    <path d="${band(1)}" stroke="${hex(tone(p.body, -0.5))}" stroke-width="5" fill="none"/>
    <path d="${band(-1)}" stroke="${hex(tone(p.body, -0.5))}" stroke-width="5" fill="none"/>
    <circle cx="300" cy="300" r="300" fill="url(#shape)"/>
    <circle cx="300" cy="300" r="300" fill="url(#bounce)"/>
    ${highlight(200, 160, 120, 80, 0.6, -35)}
    <ellipse cx="185" cy="150" rx="38" ry="21" fill="url(#glint)" transform="rotate(-35 185 150)"/>
    <path d="M520,200 A250,250 0 0 1 420,520" stroke="#fff" stroke-width="10" opacity="0.16" fill="none"/>
  </g>`;
}

export const ball: ProductDrawing = {
  width: 600,
  height: 600,
  footprint: [0.4, 0.6, 0.02],
  colours: { body: [26, 88, 212], trim: [20, 60, 150], accent: [250, 204, 36], detail: [255, 255, 255] },
  light: { body: [246, 244, 238], trim: [220, 218, 212], accent: [228, 222, 204], detail: [255, 255, 255] },
  draw,
};
