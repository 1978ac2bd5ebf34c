import { BLACK, WHITE, cylinderShade, glow, hex, highlight, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/** A glazed mug seen slightly from above: the rim and inside, a printed badge, a D handle. */
/** One outline for the rim's far half and the body (overlapping children of a clip path can cancel out). */
const BODY = 'M60,100 A260,70 0 0 1 580,100 L580,630 A260,60 0 0 1 60,630 Z';
/** A C-shaped band whose ends sink into the body: between it and the body the backdrop shows. */
const HANDLE = 'M560,190 C830,160 840,560 560,545 L560,475 C730,480 730,260 560,265 Z';

function draw(p: Palette): string {
  return (
    `
  <defs>
    <clipPath id="mug"><path d="${BODY}"/></clipPath>
    <clipPath id="handle"><path d="${HANDLE}"/></clipPath>
    ${cylinderShade('round')}
    ${linear(
      'handle-light',
      [0, 0, 1, 0],
      [
        [0, BLACK, 0.35],
        [0.5, WHITE, 0.05],
        [0.8, BLACK, 0.3],
        [1, BLACK, 0.55],
      ],
    )}
    ${linear(
      'inside',
      [0, 0, 0, 1],
      [
        [0, tone(p.body, -0.22)],
        [0.45, tone(p.body, -0.4)],
        [1, tone(p.body, -0.72)],
      ],
    )}
    ${glow()}
  </defs>
  <g transform="translate(-60 -30)">
  <path d="${HANDLE}" fill="${hex(p.body)}"/>
  <g clip-path="url(#handle)">
    <rect x="560" y="160" width="280" height="400" fill="url(#handle-light)"/>
    <path d="M600,215 C760,210 780,470 620,512" stroke="#fff" stroke-width="18" fill="none" opacity="0.14"/>
    <path d="M600,215 C760,210 780,470 620,512" stroke="#fff" stroke-width="7" fill="none" opacity="0.28"/>
  </g>
  <path d="${BODY}" fill="${hex(p.body)}"/>
  <ellipse cx="320" cy="100" rx="260" ry="70" fill="${hex(tone(p.body, 0.22))}"/>
  <g clip-path="url(#mug)">
    <ellipse cx="225" cy="380" rx="70" ry="84" fill="${hex(p.accent)}"/>
    <ellipse cx="225" cy="380" rx="56" ry="68" fill="none" stroke="${hex(p.detail)}" stroke-width="5"/>
    <polygon points="225,334 238,366 270,368 245,388 254,420 225,402 196,420 205,388 180,368 212,366" ` +
    `fill="${hex(p.detail)}"/>
    <path d="M60,560 A260,60 0 0 0 580,560" stroke="${hex(p.detail)}" stroke-width="10" fill="none"/>
    <rect x="60" y="100" width="520" height="600" fill="url(#round)"/>
    ${highlight(157, 380, 26, 230, 0.6)}
    ${highlight(526, 380, 9, 200, 0.2)}
    <ellipse cx="320" cy="101" rx="245" ry="59" fill="url(#inside)"/>
    <path d="M75,101 A245,59 0 0 0 565,101" stroke="#fff" stroke-width="3" opacity="0.3" fill="none"/>
    ${highlight(200, 70, 80, 15, 0.3)}
  </g>
  </g>`
  );
}

export const mug: ProductDrawing = {
  width: 708,
  height: 660,
  footprint: [0.01, 0.73, 0.18],
  colours: { body: [196, 36, 40], trim: [120, 20, 24], accent: [248, 246, 240], detail: [212, 172, 60] },
  light: { body: [246, 244, 239], trim: [220, 218, 212], accent: [206, 212, 222], detail: [214, 198, 160] },
  draw,
};
