import { BLACK, WHITE, glow, hex, highlight, linear, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/**
 * Over-ear headphones from the front: a thin steel band with a padded strap hung below it (the
 * backdrop shows between them), sliders of two thin rods, forked yokes, and the ear cups seen
 * edge on with their cushions turned inwards.
 */
const BAND = 'M118,470 A282,440 0 0 1 682,470';
const STRAP = 'M152,436 A248,336 0 0 1 648,436';

function draw(p: Palette): string {
  const side = (sign: number) => {
    const x = (value: number) => 400 + sign * (value - 400);
    const left = (a: number, b: number) => Math.min(x(a), x(b));
    return (
      `
    <path d="M${x(154)},446 L${x(124)},470" stroke="${hex(p.body)}" stroke-width="7"/>
    <rect x="${left(104, 132)}" y="452" width="28" height="44" rx="6" fill="${hex(p.body)}"/>
    <rect x="${left(140, 168)}" y="420" width="28" height="30" rx="6" fill="${hex(tone(p.body, 0.12))}"/>
    <path d="M${x(111)},496 L${x(111)},566 M${x(125)},496 L${x(125)},566" stroke="${hex(p.trim)}" stroke-width="5"/>
    <path d="M${x(62)},668 Q${x(60)},572 ${x(118)},566 Q${x(176)},572 ${x(174)},668" ` +
      `stroke="${hex(tone(p.trim, -0.1))}" stroke-width="11" fill="none"/>
    <rect x="${left(28, 150)}" y="600" width="122" height="260" rx="56" fill="${hex(p.body)}"/>
    <rect x="${left(28, 150)}" y="600" width="122" height="260" rx="56" fill="url(#cup)"/>
    <rect x="${left(44, 54)}" y="640" width="10" height="180" rx="5" fill="${hex(p.accent)}"/>
    <rect x="${left(138, 208)}" y="616" width="70" height="228" rx="32" fill="${hex(p.detail)}"/>
    <rect x="${left(138, 208)}" y="616" width="70" height="228" rx="32" fill="url(#cushion)"/>
    <circle cx="${x(62)}" cy="668" r="9" fill="${hex(p.trim)}"/>
    <circle cx="${x(174)}" cy="668" r="9" fill="${hex(p.trim)}"/>`
    );
  };
  return (
    `
  <defs>
    ${linear(
      'cup',
      [0, 0, 1, 0],
      [
        [0, BLACK, 0.35],
        [0.3, WHITE, 0.14],
        [0.6, BLACK, 0],
        [1, BLACK, 0.3],
      ],
    )}
    ${linear(
      'cushion',
      [0, 0, 0, 1],
      [
        [0, WHITE, 0.12],
        [0.5, BLACK, 0],
        [1, BLACK, 0.3],
      ],
    )}
    ${linear(
      'steel',
      [0, 0, 1, 0],
      [
        [0, tone(p.trim, -0.3)],
        [0.35, tone(p.trim, 0.4)],
        [0.65, p.trim],
        [1, tone(p.trim, -0.35)],
      ],
    )}
    ${glow()}
  </defs>
  <g transform="translate(-28 -23)">
  <path d="${BAND}" stroke="url(#steel)" stroke-width="14" fill="none"/>
  <path d="${STRAP}" stroke="${hex(p.body)}" stroke-width="36" fill="none"/>
  <path d="${STRAP}" stroke="${hex(tone(p.body, 0.3))}" stroke-width="2" stroke-dasharray="7 6" fill="none" ` +
    `transform="translate(0 -12)"/>
  <path d="${STRAP}" stroke="#fff" stroke-width="8" opacity="0.12" fill="none" transform="translate(0 -8)"/>
  ${side(1)}
  ${side(-1)}
  ${highlight(70, 700, 14, 90, 0.35)}
  </g>`
  );
}

export const headphones: ProductDrawing = {
  width: 744,
  height: 837,
  footprint: [0.04, 0.96, 0.03],
  colours: { body: [34, 34, 38], trim: [192, 194, 200], accent: [160, 44, 48], detail: [64, 62, 66] },
  light: { body: [240, 240, 237], trim: [212, 214, 218], accent: [226, 222, 216], detail: [228, 226, 222] },
  draw,
};
