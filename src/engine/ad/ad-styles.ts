import { opaqueColour } from '../compose/colour';
import type { PixelBounds } from '../mask/alpha-mask';
import type { AdLayout } from './ad-layout';
import type { InterWeight } from './ad-text';

/** The styles `POST /ad/create` offers: the request's list (the DTO validates it), so the two can never differ. */
export const AD_STYLES = ['minimal', 'bold', 'luxury', 'playful'] as const;
/**
 * The brand colour when a request gives none: a clear mid blue. Blue ties an ad to no one
 * industry, and this one carries white text (5.2:1) and still reads on the luxury style's
 * near-black (3.6:1), so every style works with it.
 */
export const DEFAULT_BRAND_COLOUR = '#2563EB';
export type AdStyle = (typeof AD_STYLES)[number];

const INK = '#16161A';
const WHITE = '#FFFFFF';
const GOLD = '#C9A96E';
const IVORY = '#F2EBDD';

/** How a text is set: Inter's weight, letter spacing (share of the size) and colour (`#RRGGBB`). */
export interface TextLook {
  weight: InterWeight;
  tracking: number;
  colour: string;
}

/** Every colour and face an ad of one style and brand colour uses. */
export interface AdPalette {
  brand: string;
  /** The background's main colour; over a supplied background, the veil behind the text. */
  base: string;
  headline: TextLook;
  /** The short rule under the headline. */
  rule: string;
  button: { fill: string; outline: string | null; label: TextLook };
  /** A call to action drawn as text only (the awareness goal). */
  link: TextLook;
}

/**
 * The styles' rules.
 * - minimal: warm off-white; near-black bold headline; the brand colour in the rule under the
 *   headline and in the button.
 * - bold: the brand colour fills the canvas; extra-bold headline in white or near-black,
 *   whichever contrasts more with it. The button inverts (that colour, its label in the brand
 *   colour): a brand-coloured button on a brand-coloured canvas would vanish.
 * - luxury: near-black with a warm glow; ivory light headline with wide letter spacing; gold
 *   hairlines; the button in the brand colour with a gold outline, so even a dark brand colour
 *   shows on the dark ground.
 * - playful: a pastel gradient from the brand colour's tint to its complement's; brand-coloured
 *   discs and dots that never run under the text; extra-bold near-black headline; brand button.
 * A label or link takes white or near-black, whichever contrasts more with what is under it.
 */
export function paletteFor(style: AdStyle, brand: string): AdPalette {
  const onBrand = readableOn(brand);
  const brandButton = { fill: brand, outline: null, label: { weight: 700 as const, tracking: 0, colour: onBrand } };
  switch (style) {
    case 'minimal': {
      const base = '#F4F2EE';
      return {
        brand,
        base,
        headline: { weight: 700, tracking: -0.01, colour: INK },
        rule: brand,
        button: brandButton,
        link: { weight: 700, tracking: 0, colour: legibleOr(brand, base) },
      };
    }
    case 'bold':
      return {
        brand,
        base: brand,
        headline: { weight: 800, tracking: -0.015, colour: onBrand },
        rule: onBrand,
        button: { fill: onBrand, outline: null, label: { weight: 800, tracking: 0, colour: brand } },
        link: { weight: 800, tracking: 0, colour: onBrand },
      };
    case 'luxury':
      return {
        brand,
        base: '#121014',
        headline: { weight: 300, tracking: 0.06, colour: IVORY },
        rule: GOLD,
        button: { fill: brand, outline: GOLD, label: { weight: 400, tracking: 0.08, colour: onBrand } },
        link: { weight: 400, tracking: 0.08, colour: GOLD },
      };
    case 'playful': {
      const base = mix(brand, WHITE, 0.8);
      return {
        brand,
        base,
        headline: { weight: 800, tracking: -0.01, colour: INK },
        rule: brand,
        button: brandButton,
        link: { weight: 800, tracking: 0, colour: legibleOr(brand, base) },
      };
    }
  }
}

/**
 * The style's own background for the layout as SVG: its ground and the variant's treatment,
 * drawn around the product's area so the product stands on or in front of it.
 */
export function backdropSvg(style: AdStyle, palette: AdPalette, layout: AdLayout): string {
  const { width, height } = layout.canvas;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" ` +
    `height="${height}">${TREATMENT_DRAWERS[style](palette, layout)}</svg>`
  );
}

/**
 * Over a supplied background: a translucent panel of the style's ground colour behind each text
 * slot (a button brings its own fill), so the palette's text colours read on any picture.
 */
export function veilSvg(palette: AdPalette, layout: AdLayout): string {
  const { width, height } = layout.canvas;
  const pad = Math.round(Math.min(width, height) * 0.025);
  const slots = [layout.headline?.box, layout.callToAction?.kind === 'link' ? layout.callToAction.box : undefined];
  const panels = slots
    .filter((slot): slot is PixelBounds => slot !== undefined)
    .map((slot) => {
      const left = Math.max(0, slot.left - pad);
      const top = Math.max(0, slot.top - pad);
      const right = Math.min(width, slot.left + slot.width + pad);
      const bottom = Math.min(height, slot.top + slot.height + pad);
      return (
        `<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" rx="${pad}" ` +
        `fill="${palette.base}" fill-opacity="0.85"/>`
      );
    });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${panels.join('')}</svg>`;
}

/** The product's area: its centre and the radius of the largest circle inside it. */
function stage(layout: AdLayout) {
  const area = layout.subjectArea;
  return {
    area,
    x: area.left + area.width / 2,
    y: area.top + area.height / 2,
    radius: Math.min(area.width, area.height) / 2,
    bottom: area.top + area.height,
  };
}

/** A tall panel with a round top, standing on the bottom of the product's area. */
function arch(layout: AdLayout, fill: string, extra = ''): string {
  const { area, x, bottom } = stage(layout);
  const width = Math.min(area.width * 0.8, area.height * 0.7);
  const top = area.top + area.height * 0.06;
  const left = x - width / 2;
  const r = width / 2;
  return (
    `<path d="M${n(left)} ${n(bottom)} V${n(top + r)} A${n(r)} ${n(r)} 0 0 1 ${n(left + width)} ${n(top + r)} ` +
    `V${n(bottom)} Z" fill="${fill}" ${extra}/>`
  );
}

type TreatmentDrawer = (palette: AdPalette, layout: AdLayout) => string;

const TREATMENT_DRAWERS: Readonly<Record<AdStyle, TreatmentDrawer>> = {
  minimal(palette, layout) {
    const { width, height } = layout.canvas;
    const { area, x, y, radius } = stage(layout);
    const ground = `<rect width="${width}" height="${height}" fill="${palette.base}"/>`;
    const treatments = [
      // A tabletop the product stands on.
      `<rect y="${n(area.top + area.height * 0.72)}" width="${width}" height="${height}" fill="#E6E0D6"/>`,
      // A pale disc of the brand colour behind the product.
      `<circle cx="${n(x)}" cy="${n(y)}" r="${n(radius * 0.96)}" fill="${mix(palette.brand, palette.base, 0.84)}"/>`,
      arch(layout, '#E9E3D9'),
    ];
    return ground + treatments[layout.treatment];
  },

  bold(palette, layout) {
    const { width, height } = layout.canvas;
    const { x, y, radius } = stage(layout);
    // Decor moves away from the text colour (darker under white text, lighter under dark), so the text's contrast only
    // grows.
    const decor =
      palette.headline.colour === WHITE ? mix(palette.brand, '#000000', 0.2) : mix(palette.brand, WHITE, 0.25);
    const slope = (layout.mirrored ? -1 : 1) * height * 0.22;
    const band = height * 0.32;
    const treatments = [
      `<path d="M0 ${n(y + slope - band / 2)} L${width} ${n(y - slope - band / 2)} V${n(y - slope + band / 2)} ` +
        `L0 ${n(y + slope + band / 2)} Z" fill="${decor}"/>`,
      `<circle cx="${n(x)}" cy="${n(y)}" r="${n(radius * 1.05)}" fill="${decor}"/>`,
      `<rect y="${n(y)}" width="${width}" height="${n(height - y)}" fill="${decor}"/>`,
    ];
    return `<rect width="${width}" height="${height}" fill="${palette.base}"/>` + treatments[layout.treatment];
  },

  luxury(palette, layout) {
    const { width, height } = layout.canvas;
    const { x, y, radius } = stage(layout);
    const glowStrength = layout.treatment === 1 ? 0.9 : 0.5;
    const inset = Math.round(Math.min(width, height) * 0.035);
    const treatments = [
      // A gold hairline frame, inside the margin no text uses.
      `<rect x="${inset}" y="${inset}" width="${width - 2 * inset}" height="${height - 2 * inset}" fill="none" ` +
        `stroke="${GOLD}" stroke-width="2"/>`,
      `<circle cx="${n(x)}" cy="${n(y)}" r="${n(radius * 0.98)}" fill="none" stroke="${GOLD}" stroke-width="2"/>`,
      arch(layout, mix(palette.brand, palette.base, 0.78), `stroke="${GOLD}" stroke-width="2"`),
    ];
    return (
      `<defs><radialGradient id="glow" cx="${n(x)}" cy="${n(y)}" r="${n(radius * 1.6)}" ` +
      `gradientUnits="userSpaceOnUse">
        <stop offset="0" stop-color="#3A3036" stop-opacity="${glowStrength}"/>
        <stop offset="1" stop-color="#3A3036" stop-opacity="0"/>
      </radialGradient></defs>
      <rect width="${width}" height="${height}" fill="${palette.base}"/>
      <rect width="${width}" height="${height}" fill="url(#glow)"/>${treatments[layout.treatment]}`
    );
  },

  playful(palette, layout) {
    const { width, height } = layout.canvas;
    const { area, x, y, radius } = stage(layout);
    const partner = complement(palette.brand);
    const dot = (cx: number, cy: number, r: number, fill: string) =>
      `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(r)}" fill="${fill}"/>`;
    // Shares across the product's area, or the canvas, mirrored with the variant (the area itself already is).
    const inArea = (share: number) => area.left + area.width * (layout.mirrored ? 1 - share : share);
    const onCanvas = (share: number) => width * (layout.mirrored ? 1 - share : share);
    const unit = Math.min(width, height);
    const treatments = [
      dot(x, y, radius * 0.9, palette.brand) + dot(inArea(0.1), area.top + area.height * 0.12, unit * 0.03, partner),
      dot(inArea(0.22), area.top + area.height * 0.28, radius * 0.55, palette.brand) +
        dot(inArea(0.8), area.top + area.height * 0.75, radius * 0.42, mix(partner, WHITE, 0.3)),
      CONFETTI.map(([fx, fy, size], i) =>
        dot(onCanvas(fx), fy * height, size * unit, [palette.brand, partner, WHITE][i % 3]),
      ).join(''),
    ];
    // The discs are clipped away from the text slots, where a strong colour would fight the text.
    const holes = [layout.headline?.box, layout.callToAction?.box]
      .filter((slot): slot is PixelBounds => slot !== undefined)
      .map((slot) => `M${slot.left} ${slot.top} h${slot.width} v${slot.height} h${-slot.width} Z`)
      .join(' ');
    return `<defs>
        <linearGradient id="wash" x1="${layout.mirrored ? 1 : 0}" y1="0" x2="${layout.mirrored ? 0 : 1}" y2="1">
          <stop offset="0" stop-color="${palette.base}"/>
          <stop offset="1" stop-color="${mix(partner, WHITE, 0.8)}"/>
        </linearGradient>
        <clipPath id="clear"><path clip-rule="evenodd" d="M0 0 H${width} V${height} H0 Z ${holes}"/></clipPath>
      </defs>
      <rect width="${width}" height="${height}" fill="url(#wash)"/>
      <g clip-path="url(#clear)">${treatments[layout.treatment]}</g>`;
  },
};

/** Confetti as shares of the canvas: x, y and radius (of the shorter side). */
const CONFETTI: ReadonlyArray<readonly [number, number, number]> = [
  [0.08, 0.1, 0.035],
  [0.9, 0.16, 0.05],
  [0.16, 0.42, 0.02],
  [0.86, 0.46, 0.03],
  [0.1, 0.72, 0.045],
  [0.93, 0.8, 0.025],
  [0.3, 0.93, 0.03],
  [0.68, 0.06, 0.02],
  [0.55, 0.9, 0.04],
];

/** SVG numbers: a tenth of a pixel is finer than anything drawn. */
const n = (value: number) => String(Math.round(value * 10) / 10);

function toHex({ r, g, b }: { r: number; g: number; b: number }): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`.toUpperCase();
}

/** `a` moved `share` of the way towards `b`, in sRGB. */
function mix(a: string, b: string, share: number): string {
  const from = opaqueColour(a);
  const to = opaqueColour(b);
  return toHex({
    r: from.r + (to.r - from.r) * share,
    g: from.g + (to.g - from.g) * share,
    b: from.b + (to.b - from.b) * share,
  });
}

function complement(hex: string): string {
  const { r, g, b } = opaqueColour(hex);
  return toHex({ r: 255 - r, g: 255 - g, b: 255 - b });
}

/** WCAG relative luminance. */
function luminance(hex: string): number {
  const { r, g, b } = opaqueColour(hex);
  const linear = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG contrast ratio, 1 .. 21. */
function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** White or near-black, whichever reads better on `background`. */
function readableOn(background: string): string {
  return contrast(INK, background) >= contrast(WHITE, background) ? INK : WHITE;
}

/** `colour` where it reads on `background` as large text (3:1), else the readable neutral. */
function legibleOr(colour: string, background: string): string {
  return contrast(colour, background) >= 3 ? colour : readableOn(background);
}
