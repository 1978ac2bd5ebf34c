import { BLACK, WHITE, glow, hex, highlight, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/**
 * A low aluminium keyboard from above: a silver body with a darker front edge, white keycaps in
 * six rows with grey legends. The gaps between keys are the body, so the silhouette is one slab.
 */
const WIDTH = 1000;
const HEIGHT = 336;
/** Key widths in units of a standard key, per row; every row spans 15 units. */
const ROWS: readonly (readonly number[])[] = [
  [1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.5],
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2],
  [1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.5],
  [1.75, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2.25],
  [2.25, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2.75],
  [1, 1, 1.25, 1.25, 5.25, 1.25, 1, 1, 1, 1],
];
const ROW_HEIGHTS = [34, 50, 50, 50, 50, 50];

function draw(p: Palette): string {
  const unit = (WIDTH - 44) / 15;
  const gap = 6;
  const keys: string[] = [];
  let y = 22;
  for (const [row, widths] of ROWS.entries()) {
    const h = ROW_HEIGHTS[row];
    let x = 22;
    for (const [i, w] of widths.entries()) {
      const kw = w * unit - gap;
      keys.push(
        `<rect x="${(x + gap / 2).toFixed(1)}" y="${y + gap / 2}" width="${kw.toFixed(1)}" height="${h - gap}" ` +
          `rx="5" fill="${hex(tone(p.accent, -0.12))}"/>` +
          `<rect x="${(x + gap / 2 + 1).toFixed(1)}" y="${y + gap / 2}" width="${(kw - 2).toFixed(1)}" ` +
          `height="${h - gap - 3}" rx="4" fill="url(#cap)"/>`,
      );
      // A legend on most keys: a short mark in the upper left, as small print reads from afar.
      if (w < 5 && (row + i) % 4 !== 3) {
        keys.push(
          `<rect x="${(x + gap / 2 + 7).toFixed(1)}" y="${y + gap / 2 + 6}" ` +
            `width="${Math.min(14, kw * 0.3).toFixed(1)}" height="4" rx="1" fill="${hex(p.detail)}"/>`,
        );
      }
      x += w * unit;
    }
    y += h;
  }
  return `
  <defs>
    ${linear(
      'aluminium',
      [0, 0, 1, 1],
      [
        [0, tone(p.body, 0.3)],
        [0.4, p.body],
        [0.6, tone(p.body, 0.12)],
        [1, tone(p.body, -0.18)],
      ],
    )}
    ${linear(
      'cap',
      [0, 0, 0, 1],
      [
        [0, tone(p.accent, 0.4)],
        [1, p.accent],
      ],
    )}
    ${linear(
      'sheen',
      [0, 0, 1, 0],
      [
        [0, WHITE, 0.12],
        [0.5, BLACK, 0],
        [1, BLACK, 0.1],
      ],
    )}
    ${glow()}
  </defs>
  <rect x="0" y="${HEIGHT - 40}" width="${WIDTH}" height="40" rx="20" fill="${hex(p.trim)}"/>
  <rect x="0" y="0" width="${WIDTH}" height="${HEIGHT - 10}" rx="20" fill="url(#aluminium)"/>
  <rect x="10" y="10" width="${WIDTH - 20}" height="${HEIGHT - 30}" rx="14" fill="${hex(tone(p.body, -0.16))}"/>
  ${keys.join('')}
  <rect x="0" y="0" width="${WIDTH}" height="${HEIGHT - 10}" rx="20" fill="url(#sheen)"/>
  ${highlight(260, 40, 220, 14, 0.25)}`;
}

export const keyboard: ProductDrawing = {
  width: WIDTH,
  height: HEIGHT,
  footprint: [0, 1, 1],
  colours: { body: [196, 198, 202], trim: [132, 134, 140], accent: [244, 244, 241], detail: [128, 130, 136] },
  light: { body: [238, 238, 236], trim: [212, 212, 210], accent: [252, 252, 250], detail: [196, 196, 200] },
  draw,
};
