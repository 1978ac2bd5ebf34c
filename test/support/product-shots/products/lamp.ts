import { BLACK, WHITE, cylinderShade, glow, hex, highlight, linear, radial, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/** A desk lamp: a heavy round base, a thin stem and arm with hinges, a cone shade lit inside. */
const SHADE = 'M440,30 L520,30 C545,80 610,170 630,270 L330,270 C350,170 415,80 440,30 Z';

function draw(p: Palette): string {
  const metal = (id: string) =>
    linear(
      id,
      [0, 0, 1, 0],
      [
        [0, tone(p.body, -0.4)],
        [0.35, tone(p.body, 0.35)],
        [0.6, p.body],
        [1, tone(p.body, -0.5)],
      ],
    );
  return `
  <defs>
    ${metal('stem')}
    ${metal('base-side')}
    ${linear(
      'brass',
      [0, 0, 1, 1],
      [
        [0, tone(p.trim, 0.5)],
        [0.5, p.trim],
        [1, tone(p.trim, -0.45)],
      ],
    )}
    ${radial(
      'base-top',
      [0.5, 0.5, 0.6, 0.35, 0.3],
      [
        [0, tone(p.body, 0.3)],
        [1, tone(p.body, -0.2)],
      ],
    )}
    ${radial(
      'glow',
      [0.5, 0.35, 0.6],
      [
        [0, p.detail],
        [0.5, p.accent],
        [1, tone(p.accent, -0.3)],
      ],
    )}
    <clipPath id="shade"><path d="${SHADE}"/></clipPath>
    ${cylinderShade('cone', 0.9)}
    ${linear(
      'arm-light',
      [0, 0, 1, 1],
      [
        [0, WHITE, 0.25],
        [1, BLACK, 0.3],
      ],
    )}
    ${glow()}
    <clipPath id="base-top"><ellipse cx="220" cy="940" rx="200" ry="34"/></clipPath>
  </defs>
  <g transform="translate(-20 0)">
  <path d="M20,940 L20,966 A200,34 0 0 0 420,966 L420,940 Z" fill="url(#base-side)"/>
  <ellipse cx="220" cy="940" rx="200" ry="34" fill="url(#base-top)"/>
  <g clip-path="url(#base-top)">${highlight(150, 930, 100, 16, 0.3)}</g>
  <rect x="320" y="928" width="40" height="14" rx="5" fill="${hex(p.trim)}"/>
  <rect x="210" y="520" width="20" height="420" fill="url(#stem)"/>
  <ellipse cx="220" cy="944" rx="26" ry="8" fill="${hex(tone(p.body, -0.5))}"/>
  <line x1="220" y1="520" x2="445" y2="85" stroke="${hex(p.body)}" stroke-width="18" stroke-linecap="round"/>
  <line x1="220" y1="520" x2="445" y2="85" stroke="#fff" stroke-width="5" opacity="0.28" transform="translate(-4 -2)"/>
  <circle cx="220" cy="520" r="24" fill="url(#brass)"/>
  <circle cx="220" cy="520" r="8" fill="${hex(tone(p.trim, -0.5))}"/>
  <path d="${SHADE}" fill="${hex(p.body)}"/>
  <g clip-path="url(#shade)">
    <rect x="320" y="20" width="320" height="260" fill="url(#cone)"/>
    ${highlight(396, 160, 16, 100, 0.4, 22)}
    <rect x="330" y="226" width="300" height="10" fill="${hex(p.trim)}"/>
  </g>
  <ellipse cx="480" cy="270" rx="150" ry="26" fill="url(#glow)"/>
  <ellipse cx="480" cy="270" rx="150" ry="26" fill="none" stroke="${hex(tone(p.body, -0.3))}" stroke-width="4"/>
  <ellipse cx="480" cy="268" rx="44" ry="14" fill="${hex(p.detail)}"/>
  <rect x="455" y="0" width="50" height="38" rx="10" fill="url(#brass)"/>
  <circle cx="445" cy="85" r="18" fill="url(#brass)"/>
  </g>`;
}

export const lamp: ProductDrawing = {
  width: 612,
  height: 1000,
  footprint: [0, 0.655, 0.09],
  colours: { body: [42, 42, 48], trim: [192, 150, 70], accent: [255, 226, 160], detail: [255, 250, 232] },
  light: { body: [238, 236, 232], trim: [212, 204, 190], accent: [255, 240, 212], detail: [255, 252, 244] },
  draw,
};
