import type { Rgb } from '../../image-fixtures';
import { BLACK, WHITE, glow, hex, highlight, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/**
 * A wooden chair seen from the front left: four thin legs with stretchers, a cushioned seat, a
 * backrest of rails and slats. The gaps between legs, rails and slats show the backdrop.
 */

/** A square leg or post from (x, top) to (x, bottom): a lit front and a shaded side. */
function leg(x: number, top: number, bottom: number, width: number, wood: Rgb, lean = 0): string {
  const side = width * 0.32;
  const front = width - side;
  const quad = (x0: number, w: number, colour: Rgb) =>
    `<polygon points="${x0 + lean},${top} ${x0 + lean + w},${top} ${x0 + w},${bottom} ${x0},${bottom}" ` +
    `fill="${hex(colour)}"/>`;
  return quad(x, front, tone(wood, 0.06)) + quad(x + front, side, tone(wood, -0.28));
}

/** A slab from (x0, y0) to (x1, y1) along its top edge, `thickness` deep, lit on top. */
function rail(x0: number, y0: number, x1: number, y1: number, thickness: number, wood: Rgb): string {
  return (
    `<polygon points="${x0},${y0} ${x1},${y1} ${x1},${y1 + thickness} ${x0},${y0 + thickness}" ` +
    `fill="${hex(tone(wood, -0.12))}"/>` +
    `<polygon points="${x0},${y0} ${x1},${y1} ${x1},${y1 + thickness * 0.3} ${x0},${y0 + thickness * 0.3}" ` +
    `fill="${hex(tone(wood, 0.12))}"/>`
  );
}

function draw(p: Palette): string {
  const wood = p.body;
  const slats = [300, 395, 490]
    .map((x) => {
      const top = 132 + (x - 200) * (40 / 390);
      return leg(x, top, top + 130, 16, tone(wood, -0.05));
    })
    .join('');
  return (
    `
  <defs>
    ${linear(
      'seat-light',
      [0, 0, 1, 1],
      [
        [0, WHITE, 0.22],
        [1, BLACK, 0.15],
      ],
    )}
    ${linear(
      'rail-light',
      [0, 0, 0, 1],
      [
        [0, WHITE, 0.25],
        [0.5, WHITE, 0],
        [1, BLACK, 0.25],
      ],
    )}
    ${glow()}
  </defs>
  <g transform="translate(-40 -40)">
  ${leg(204, 40, 930, 24, tone(wood, -0.15), 6)}
  ${leg(564, 80, 950, 24, tone(wood, -0.15), 6)}
  ${rail(72, 790, 204, 740, 14, tone(wood, -0.2))}
  ${rail(430, 820, 564, 760, 14, tone(wood, -0.1))}
  ${slats}
  <path d="M206,40 Q400,45 594,80 L594,170 Q400,140 206,130 Z" fill="${hex(wood)}"/>
  <path d="M206,40 Q400,45 594,80 L594,170 Q400,140 206,130 Z" fill="url(#rail-light)"/>
  ${highlight(380, 66, 150, 10, 0.35, 5)}
  ${rail(206, 262, 594, 302, 30, wood)}
  <polygon points="430,600 590,530 590,566 430,636" fill="${hex(tone(wood, -0.3))}"/>
  <polygon points="40,560 430,600 430,636 40,596" fill="${hex(tone(wood, -0.1))}"/>
  <polygon points="40,560 430,600 590,530 200,490" fill="${hex(wood)}"/>
  <polygon points="40,560 430,600 590,530 200,490" fill="url(#seat-light)"/>
  <polygon points="73,546 416,581 556,520 556,532 416,593 73,558" fill="${hex(tone(p.accent, -0.35))}"
    stroke="${hex(tone(p.accent, -0.35))}" stroke-width="16" stroke-linejoin="round"/>
  <polygon points="73,546 416,581 556,520 214,485" fill="${hex(p.accent)}" stroke="${hex(p.accent)}" ` +
    `stroke-width="16" stroke-linejoin="round"/>
  <polygon points="73,546 416,581 556,520 214,485" fill="url(#seat-light)"/>
  ${rail(72, 830, 404, 865, 16, wood)}
  ${leg(46, 590, 990, 26, wood)}
  ${leg(404, 630, 1000, 26, wood)}
  <rect x="50" y="600" width="5" height="380" fill="#fff" opacity="0.18"/>
  <rect x="408" y="640" width="5" height="350" fill="#fff" opacity="0.18"/>
  </g>`
  );
}

export const chair: ProductDrawing = {
  width: 556,
  height: 960,
  footprint: [0.01, 0.99, 0.05],
  colours: { body: [206, 164, 108], trim: [150, 110, 66], accent: [38, 104, 116], detail: [60, 40, 24] },
  light: { body: [242, 238, 230], trim: [226, 220, 208], accent: [232, 228, 218], detail: [200, 196, 188] },
  grain: { size: [3, 70], strength: 0.07 },
  draw,
};
