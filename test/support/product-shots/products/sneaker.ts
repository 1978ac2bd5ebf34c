import { BLACK, WHITE, glow, hex, highlight, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/** A low sneaker in profile, toe to the right: a cupsole, a stitched upper, a side stripe, laces. */
const SOLE =
  'M30,330 C28,305 50,292 80,292 L640,300 C760,302 880,300 930,296 C975,292 998,318 992,350 ' +
  'C986,385 960,410 915,412 L95,425 C55,426 32,400 30,370 Z';
const UPPER =
  'M60,310 C40,240 40,170 70,120 C90,90 130,80 165,95 C215,120 285,135 345,118 C370,110 385,80 395,50 ' +
  'C405,30 450,28 462,50 L480,100 C600,150 720,200 830,232 C910,255 965,275 975,300 L960,312 Z';

function draw(p: Palette): string {
  const laces = Array.from({ length: 5 }, (_, i) => {
    const x = 500 + i * 62;
    const y = 118 + i * 24;
    return (
      `<circle cx="${x + 12}" cy="${y + 26}" r="6" fill="${hex(tone(p.body, -0.5))}"/>` +
      `<rect x="${x - 26}" y="${y - 6}" width="56" height="13" rx="6" fill="${hex(p.detail)}" ` +
      `transform="rotate(-28 ${x} ${y})"/>`
    );
  }).join('');
  const perforations = Array.from({ length: 14 }, (_, i) => {
    const x = 830 + (i % 7) * 18 + (Math.floor(i / 7) % 2) * 9;
    const y = 262 + Math.floor(i / 7) * 14;
    return `<circle cx="${x}" cy="${y}" r="2.6" fill="#000" opacity="0.35"/>`;
  }).join('');
  const tread = Array.from(
    { length: 24 },
    (_, i) => `<rect x="${70 + i * 37}" y="396" width="14" height="40" fill="#000" opacity="0.25"/>`,
  ).join('');
  return (
    `
  <defs>
    <clipPath id="upper"><path d="${UPPER}"/></clipPath>
    <clipPath id="sole"><path d="${SOLE}"/></clipPath>
    ${linear(
      'upper-light',
      [0, 0, 0, 1],
      [
        [0, WHITE, 0.16],
        [0.45, BLACK, 0],
        [1, BLACK, 0.3],
      ],
    )}
    ${linear(
      'sole-light',
      [0, 0, 0, 1],
      [
        [0, WHITE, 0.3],
        [0.5, BLACK, 0.03],
        [1, BLACK, 0.2],
      ],
    )}
    ${glow()}
  </defs>
  <g transform="translate(-28 -28)">
  <path d="${UPPER}" fill="${hex(p.body)}"/>
  <g clip-path="url(#upper)">
    <path d="M170,100 C220,125 290,138 345,118 C300,158 220,150 170,100 Z" fill="${hex(tone(p.body, -0.6))}"/>
    <path d="M60,150 C62,120 80,100 100,92 L112,130 C92,142 84,158 80,180 Z" fill="${hex(p.accent)}"/>
    <path d="M760,312 C780,255 840,236 900,250 C950,262 975,285 980,312 Z" fill="${hex(tone(p.body, 0.12))}"/>
    ${perforations}
    <path d="M120,262 C250,252 380,172 520,142 C544,150 548,172 532,182 C400,212 280,282 150,292 Z" ` +
    `fill="${hex(p.accent)}"/>
    <path d="M70,282 C300,300 600,300 960,296" stroke="${hex(tone(p.body, 0.35))}" stroke-width="2.5" ` +
    `stroke-dasharray="9 7" fill="none"/>
    <path d="M180,108 C230,134 300,146 350,128" stroke="${hex(tone(p.body, 0.3))}" stroke-width="12" fill="none"/>
    ${laces}
    <rect x="0" y="0" width="1000" height="330" fill="url(#upper-light)"/>
    ${highlight(880, 262, 80, 22, 0.4, 18)}
    ${highlight(70, 200, 16, 75, 0.3)}
  </g>
  <path d="${SOLE}" fill="${hex(p.trim)}"/>
  <g clip-path="url(#sole)">
    <rect x="0" y="392" width="1000" height="50" fill="${hex(tone(p.trim, -0.45))}"/>
    ${tread}
    <path d="M40,352 C300,366 700,360 990,340" stroke="${hex(tone(p.trim, -0.18))}" stroke-width="4" fill="none"/>
    <rect x="0" y="280" width="1000" height="160" fill="url(#sole-light)"/>
  </g>
  </g>`
  );
}

export const sneaker: ProductDrawing = {
  width: 972,
  height: 400,
  footprint: [0.05, 0.96, 0.05],
  colours: { body: [30, 44, 90], trim: [240, 238, 232], accent: [236, 108, 28], detail: [246, 246, 246] },
  light: { body: [240, 240, 236], trim: [226, 223, 215], accent: [190, 200, 212], detail: [250, 250, 250] },
  grain: { size: [2.5, 2.5], strength: 0.03 },
  draw,
};
