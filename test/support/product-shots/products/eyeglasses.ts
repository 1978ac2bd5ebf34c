import { WHITE, hex, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/**
 * A pair of frames without lenses, from the front and a little above: two acetate rims, a
 * bridge, metal pad arms holding nose pads, and the temples receding behind the rims. The lens
 * openings show the backdrop (and the temples behind them), so the mask has them as holes.
 */

/** A lens outline around (cx, cy): a superellipse, wider at the top, as closed path data. */
function lens(cx: number, cy: number, a: number, b: number): string {
  const points = Array.from({ length: 96 }, (_, i) => {
    const t = (i / 96) * 2 * Math.PI;
    const c = Math.cos(t);
    const s = Math.sin(t);
    const y = b * Math.sign(s) * Math.abs(s) ** (2 / 3);
    const x = a * Math.sign(c) * Math.abs(c) ** (2 / 3) * (1 - 0.09 * (y / b));
    return `${(cx + x).toFixed(1)},${(cy + y).toFixed(1)}`;
  });
  return `M${points.join(' L')} Z`;
}

const RIM = 18;
const rim = (cx: number) => `${lens(cx, 255, 215, 145)} ${lens(cx, 255, 215 - RIM, 145 - RIM)}`;
const LEFT = rim(245);
const RIGHT = rim(755);
const BRIDGE = 'M448,200 Q500,150 552,200';

function draw(p: Palette): string {
  const temple = (sign: number) => {
    const x = (value: number) => 500 + sign * (value - 500);
    return (
      `<path d="M${x(20)},190 L${x(116)},26 Q${x(126)},8 ${x(148)},12" stroke="${hex(tone(p.body, -0.2))}" ` +
      `stroke-width="10" stroke-linecap="round" fill="none"/>` +
      `<path d="M${x(96)},60 L${x(116)},26 Q${x(126)},8 ${x(148)},12" stroke="${hex(p.accent)}" stroke-width="11" ` +
      `stroke-linecap="round" fill="none"/>`
    );
  };
  const pad = (sign: number) => {
    const x = (value: number) => 500 + sign * (value - 500);
    return (
      `<path d="M${x(462)},226 Q${x(420)},250 ${x(406)},300" stroke="${hex(p.trim)}" stroke-width="4" fill="none"/>` +
      `<ellipse cx="${x(404)}" cy="318" rx="11" ry="21" fill="${hex(p.detail)}" ` +
      `transform="rotate(${sign * 14} ${x(404)} 318)"/>`
    );
  };
  const hinge = (sign: number) => {
    const x = (value: number) => 500 + sign * (value - 500);
    return (
      `<rect x="${Math.min(x(2), x(44))}" y="168" width="42" height="34" rx="8" fill="${hex(p.body)}"/>` +
      `<circle cx="${x(18)}" cy="185" r="6" fill="${hex(p.trim)}"/>`
    );
  };
  return `
  <g transform="translate(-2 -6)">
  <defs>
    ${linear(
      'acetate',
      [0, 0, 0, 1],
      [
        [0, tone(p.body, 0.35)],
        [0.3, p.body],
        [1, tone(p.body, -0.3)],
      ],
    )}
  </defs>
  ${temple(1)}
  ${temple(-1)}
  ${pad(1)}
  ${pad(-1)}
  <path d="${LEFT}" fill="url(#acetate)" fill-rule="evenodd"/>
  <path d="${RIGHT}" fill="url(#acetate)" fill-rule="evenodd"/>
  <path d="${BRIDGE}" stroke="${hex(p.body)}" stroke-width="20" fill="none"/>
  <path d="${BRIDGE}" stroke="${hex(WHITE)}" stroke-width="4" opacity="0.25" fill="none" transform="translate(0 -5)"/>
  ${hinge(1)}
  ${hinge(-1)}
  <path d="M80,140 Q245,100 410,140" stroke="#fff" stroke-width="5" opacity="0.3" fill="none" stroke-linecap="round"/>
  <path d="M590,140 Q755,100 920,140" stroke="#fff" stroke-width="5" opacity="0.3" fill="none" stroke-linecap="round"/>
  </g>`;
}

export const eyeglasses: ProductDrawing = {
  width: 996,
  height: 394,
  footprint: [0.05, 0.95, 0.04],
  colours: { body: [46, 34, 30], trim: [188, 190, 194], accent: [120, 84, 60], detail: [214, 210, 200] },
  light: { body: [238, 236, 230], trim: [208, 210, 214], accent: [226, 220, 210], detail: [246, 244, 240] },
  draw,
};
