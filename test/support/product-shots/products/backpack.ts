import { BLACK, WHITE, glow, hex, highlight, linear, radial, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/** A backpack from the front: a padded rounded body, a zipped pocket, straps, a carry loop. */
const BODY =
  'M60,300 C60,120 170,60 310,60 C450,60 560,120 560,300 L570,720 C570,770 540,790 490,790 ' +
  'L130,790 C80,790 50,770 50,720 Z';
/** The carry loop, a band whose hole shows the backdrop above the body. */
const LOOP = 'M245,110 C245,-40 375,-40 375,110 L350,110 C350,0 270,0 270,110 Z';

function draw(p: Palette): string {
  const strap = (x: number) =>
    `<rect x="${x}" y="130" width="36" height="660" fill="${hex(p.trim)}"/>` +
    `<rect x="${x + 3}" y="130" width="30" height="660" fill="none" stroke="${hex(tone(p.trim, 0.3))}" ` +
    `stroke-width="1.5" stroke-dasharray="6 5"/>` +
    `<rect x="${x - 6}" y="610" width="48" height="34" rx="5" fill="${hex(p.detail)}"/>` +
    `<rect x="${x + 4}" y="618" width="28" height="18" rx="3" fill="${hex(tone(p.detail, -0.45))}"/>`;
  return (
    `
  <defs>
    <clipPath id="body"><path d="${BODY}"/></clipPath>
    ${radial(
      'padding',
      [0.45, 0.4, 0.7, 0.38, 0.3],
      [
        [0, WHITE, 0.14],
        [0.55, BLACK, 0],
        [0.85, BLACK, 0.22],
        [1, BLACK, 0.45],
      ],
    )}
    ${linear(
      'pocket-light',
      [0, 0, 0, 1],
      [
        [0, WHITE, 0.12],
        [1, BLACK, 0.25],
      ],
    )}
    ${linear(
      'loop-light',
      [0, 0, 1, 0],
      [
        [0, WHITE, 0.2],
        [1, BLACK, 0.35],
      ],
    )}
    ${glow()}
  </defs>
  <g transform="translate(-50 2.5)">
  <path d="${LOOP}" fill="${hex(p.trim)}"/>
  <path d="${LOOP}" fill="url(#loop-light)"/>
  <path d="${BODY}" fill="${hex(p.body)}"/>
  <g clip-path="url(#body)">
    <path d="M90,300 C100,150 200,100 310,100 C420,100 520,150 530,300" stroke="${hex(tone(p.body, -0.5))}" ` +
    `stroke-width="9" fill="none"/>
    <path d="M90,300 C100,150 200,100 310,100 C420,100 520,150 530,300" stroke="${hex(tone(p.body, 0.25))}" ` +
    `stroke-width="3" stroke-dasharray="2 3" fill="none"/>
    <rect x="488" y="192" width="14" height="40" rx="4" fill="${hex(p.detail)}" transform="rotate(-28 495 212)"/>
    ${strap(190)}
    ${strap(394)}
    <rect x="110" y="450" width="400" height="300" rx="80" fill="${hex(tone(p.body, -0.08))}"/>
    <rect x="122" y="462" width="376" height="276" rx="70" fill="none" stroke="${hex(tone(p.body, 0.25))}" ` +
    `stroke-width="2" stroke-dasharray="7 5"/>
    <rect x="110" y="450" width="400" height="300" rx="80" fill="url(#pocket-light)"/>
    <path d="M150,470 L470,470" stroke="${hex(tone(p.body, -0.55))}" stroke-width="7"/>
    <rect x="440" y="466" width="12" height="34" rx="4" fill="${hex(p.detail)}"/>
    <rect x="268" y="520" width="84" height="50" rx="8" fill="${hex(p.accent)}"/>
    <rect x="276" y="528" width="68" height="34" rx="5" fill="none" stroke="${hex(tone(p.accent, 0.35))}" ` +
    `stroke-width="2" stroke-dasharray="4 3"/>
    <path d="${BODY}" fill="url(#padding)"/>
    ${highlight(200, 180, 110, 55, 0.18, -30)}
  </g>
  </g>`
  );
}

export const backpack: ProductDrawing = {
  width: 520,
  height: 793,
  footprint: [0.06, 0.94, 0.04],
  colours: { body: [90, 106, 56], trim: [48, 56, 32], accent: [168, 112, 62], detail: [200, 200, 204] },
  light: { body: [238, 232, 218], trim: [214, 206, 188], accent: [222, 206, 180], detail: [246, 246, 246] },
  grain: { size: [2.2, 2.2], strength: 0.05 },
  draw,
};
