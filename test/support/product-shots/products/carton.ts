import { BLACK, WHITE, hex, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/**
 * A closed carton seen from above one corner: a lit front face, a side face in shade and a top
 * with a taped seam. Each face's print is drawn in face units (0..100 on both axes) and mapped
 * onto the face with an affine matrix.
 */
const N = [420, 160];
const L = [0, 90];
const R = [740, 70];
const DROP = 500;
const B = [L[0] + R[0] - N[0], L[1] + R[1] - N[1]];

const point = ([x, y]: number[], dy = 0) => `${x},${y + dy}`;
const FRONT = `${point(L)} ${point(N)} ${point(N, DROP)} ${point(L, DROP)}`;
const SIDE = `${point(N)} ${point(R)} ${point(R, DROP)} ${point(N, DROP)}`;
const TOP = `${point(L)} ${point(N)} ${point(R)} ${point(B)}`;

/** The matrix taking face units (u across, v down, 0..100) onto a face from `origin`. */
const face = (origin: number[], across: number[], down: number[]) =>
  `matrix(${(across[0] - origin[0]) / 100} ${(across[1] - origin[1]) / 100} ${(down[0] - origin[0]) / 100} ` +
  `${(down[1] - origin[1]) / 100} ${origin[0]} ${origin[1]})`;

function draw(p: Palette): string {
  const barcode = Array.from({ length: 18 }, (_, i) => {
    const width = [1.2, 0.6, 0.9, 0.5][i % 4];
    return `<rect x="${58 + i * 1.7}" y="74" width="${width}" height="12" fill="${hex(p.detail)}"/>`;
  }).join('');
  return `
  <defs>
    <clipPath id="box"><polygon points="${FRONT}"/><polygon points="${SIDE}"/><polygon points="${TOP}"/></clipPath>
    ${linear(
      'front-light',
      [0, 0, 1, 1],
      [
        [0, WHITE, 0.12],
        [0.6, BLACK, 0],
        [1, BLACK, 0.18],
      ],
    )}
    ${linear(
      'side-light',
      [0, 0, 1, 1],
      [
        [0, BLACK, 0.3],
        [1, BLACK, 0.48],
      ],
    )}
    ${linear(
      'top-light',
      [0, 0, 1, 0],
      [
        [0, WHITE, 0.3],
        [1, WHITE, 0.12],
      ],
    )}
  </defs>
  <polygon points="${FRONT}" fill="${hex(p.body)}"/>
  <polygon points="${SIDE}" fill="${hex(p.body)}"/>
  <polygon points="${TOP}" fill="${hex(tone(p.body, 0.05))}"/>
  <g clip-path="url(#box)">
    <g transform="${face(L, N, [L[0], L[1] + DROP])}">
      <rect x="0" y="52" width="100" height="20" fill="${hex(p.trim)}"/>
      <rect x="0" y="74" width="100" height="3" fill="${hex(p.trim)}"/>
      <circle cx="26" cy="30" r="13" fill="${hex(p.accent)}"/>
      <path d="M19,30 L25,37 L35,22" stroke="${hex(p.trim)}" stroke-width="3.5" fill="none"/>
      <rect x="46" y="22" width="40" height="5" fill="${hex(p.accent)}"/>
      <rect x="46" y="31" width="28" height="3" fill="${hex(p.accent)}" opacity="0.7"/>
      <rect x="10" y="57" width="52" height="4" fill="${hex(p.accent)}"/>
      <rect x="10" y="64" width="34" height="3" fill="${hex(p.accent)}" opacity="0.7"/>
      <rect x="0" y="0" width="100" height="100" fill="url(#front-light)"/>
    </g>
    <g transform="${face(N, R, [N[0], N[1] + DROP])}">
      <rect x="0" y="52" width="100" height="20" fill="${hex(p.trim)}"/>
      <rect x="54" y="72" width="36" height="16" fill="${hex(p.trim)}"/>
      ${barcode}
      <circle cx="24" cy="28" r="9" fill="${hex(p.accent)}"/>
      <rect x="0" y="0" width="100" height="100" fill="url(#side-light)"/>
    </g>
    <g transform="${face(L, N, B)}">
      <rect x="0" y="0" width="100" height="100" fill="url(#top-light)"/>
      <rect x="0" y="44" width="100" height="12" fill="${hex(tone(p.trim, -0.25))}" opacity="0.55"/>
      <rect x="0" y="49.6" width="100" height="0.8" fill="#000" opacity="0.3"/>
      <rect x="0" y="44" width="100" height="1.2" fill="#fff" opacity="0.4"/>
    </g>
    <polyline points="${point(L)} ${point(N)} ${point(R)}" stroke="#fff" stroke-width="14" opacity="0.14" fill="none"/>
    <polyline points="${point(L)} ${point(N)} ${point(R)}" stroke="#fff" stroke-width="5" opacity="0.3" fill="none"/>
    <line x1="${N[0]}" y1="${N[1]}" x2="${N[0]}" y2="${N[1] + DROP}" stroke="#fff" stroke-width="5" opacity="0.35"/>
  </g>`;
}

export const carton: ProductDrawing = {
  width: 740,
  height: 660,
  footprint: [0.02, 0.98, 0.24],
  colours: { body: [226, 110, 30], trim: [250, 246, 238], accent: [24, 62, 140], detail: [34, 34, 38] },
  light: { body: [244, 241, 234], trim: [253, 252, 250], accent: [164, 178, 194], detail: [110, 110, 116] },
  grain: { size: [6, 6], strength: 0.035 },
  draw,
};
