import { BLACK, WHITE, cylinderShade, glow, hex, highlight, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/** A glass bottle with shoulders, a metal screw cap and a wrapped paper label. */
const GLASS =
  'M158,150 L282,150 L282,262 C282,336 440,344 440,452 L440,962 Q440,1000 402,1000 L38,1000 ' +
  'Q0,1000 0,962 L0,452 C0,344 158,336 158,262 Z';

function draw(p: Palette): string {
  return `
  <defs>
    <clipPath id="glass"><path d="${GLASS}"/></clipPath>
    ${cylinderShade('round')}
    ${linear(
      'metal',
      [0, 0, 1, 0],
      [
        [0, tone(p.trim, -0.5)],
        [0.28, tone(p.trim, 0.55)],
        [0.5, p.trim],
        [1, tone(p.trim, -0.6)],
      ],
    )}
    ${linear(
      'depth',
      [0, 0, 0, 1],
      [
        [0, WHITE, 0.1],
        [0.35, BLACK, 0],
        [0.92, BLACK, 0.1],
        [1, BLACK, 0.35],
      ],
    )}
    ${glow()}
  </defs>
  <path d="${GLASS}" fill="${hex(p.body)}"/>
  <g clip-path="url(#glass)">
    <path d="M0,560 Q220,590 440,560 L440,880 Q220,910 0,880 Z" fill="${hex(p.detail)}"/>
    <path d="M0,600 Q220,630 440,600 L440,624 Q220,654 0,624 Z" fill="${hex(p.accent)}"/>
    <path d="M0,842 Q220,872 440,842 L440,850 Q220,880 0,850 Z" fill="${hex(p.trim)}"/>
    <circle cx="220" cy="722" r="64" fill="${hex(p.accent)}"/>
    <path d="M220,676 C260,700 262,748 220,770 C180,748 182,700 220,676 Z" fill="${hex(p.detail)}"/>
    <path d="M220,690 L220,762" stroke="${hex(p.accent)}" stroke-width="5"/>
    <rect x="140" y="800" width="160" height="8" fill="${hex(p.accent)}" opacity="0.55"/>
    <rect x="165" y="816" width="110" height="6" fill="${hex(p.accent)}" opacity="0.4"/>
    <rect x="0" y="150" width="440" height="850" fill="url(#depth)"/>
    <rect x="0" y="150" width="440" height="850" fill="url(#round)"/>
    ${highlight(93, 650, 28, 340, 0.55)}
    ${highlight(127, 640, 12, 290, 0.3)}
    ${highlight(120, 420, 100, 62, 0.35)}
    ${highlight(399, 690, 11, 280, 0.2)}
    ${highlight(193, 230, 12, 68, 0.45)}
  </g>
  <rect x="140" y="0" width="160" height="150" rx="14" fill="url(#metal)"/>
  ${Array.from(
    { length: 12 },
    (_, i) => `<rect x="${150 + i * 12.5}" y="10" width="4" height="122" ` + `fill="#000" opacity="0.18"/>`,
  ).join('')}
  <rect x="132" y="138" width="176" height="26" rx="9" fill="url(#metal)"/>
  <rect x="136" y="140" width="168" height="5" rx="2" fill="#fff" opacity="0.35"/>`;
}

export const bottle: ProductDrawing = {
  width: 440,
  height: 1000,
  footprint: [0.04, 0.96, 0.04],
  colours: { body: [26, 82, 46], trim: [196, 160, 82], accent: [166, 36, 44], detail: [240, 231, 210] },
  light: { body: [242, 238, 229], trim: [212, 212, 216], accent: [178, 166, 144], detail: [250, 248, 243] },
  draw,
};
