import { InvalidArgumentError } from 'commander';

/** The command line's placement flags, as commander parses them. */
export interface PlacementFlags {
  /** `--placement-size WxH`. */
  placementSize?: { width: number; height: number };
  /** `--padding`: one length, or four (top, right, bottom, left, as CSS orders them). */
  padding?: PaddingFlag;
  /** `--align`: the horizontal and vertical alignment, either left out. */
  align?: { horizontal?: string; vertical?: string };
  /** `--scale`: fit, fill or N%. */
  scale?: string;
  shadowInBox?: boolean;
}

type PaddingLength = number | string;
type PaddingFlag =
  PaddingLength | { top: PaddingLength; right: PaddingLength; bottom: PaddingLength; left: PaddingLength };

const MAX_SIDE = 8192;

/** `1200x1200`: the canvas's width and height, each 1 to 8192. */
export function canvasSize(value: string): { width: number; height: number } {
  const match = /^(\d{1,4})x(\d{1,4})$/i.exec(value.trim());
  const [width, height] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) {
    throw new InvalidArgumentError(`WIDTHxHEIGHT, each from 1 to ${MAX_SIDE} (1200x1200)`);
  }
  return { width, height };
}

function paddingLength(value: string): PaddingLength {
  const text = value.trim();
  if (/^\d{1,4}$/.test(text) && Number(text) <= MAX_SIDE) return Number(text);
  if (/^\d{1,4}px$/.test(text) && Number(text.slice(0, -2)) <= MAX_SIDE) return Number(text.slice(0, -2));
  if (/^\d{1,2}(\.\d{1,2})?%$/.test(text) && Number(text.slice(0, -1)) < 50) return text;
  throw new InvalidArgumentError('pixels (24 or 24px) or a percent of the canvas side below 50 (5%)');
}

/** `24`, `5%`, or four lengths `top,right,bottom,left` (`5%,24,5%,24`). */
export function paddingFlag(value: string): PaddingFlag {
  const parts = value.split(',');
  if (parts.length === 1) return paddingLength(parts[0]);
  if (parts.length !== 4) throw new InvalidArgumentError('one length, or four: top,right,bottom,left');
  const [top, right, bottom, left] = parts.map(paddingLength);
  return { top, right, bottom, left };
}

const HORIZONTAL = ['left', 'center', 'right'];
const VERTICAL = ['top', 'center', 'bottom'];

/** `left`, `bottom`, `center` (both), or both as `horizontal,vertical` (`center,bottom`). */
export function alignFlag(value: string): { horizontal?: string; vertical?: string } {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length === 2 && HORIZONTAL.includes(parts[0]) && VERTICAL.includes(parts[1])) {
    return { horizontal: parts[0], vertical: parts[1] };
  }
  if (parts.length === 1 && parts[0] === 'center') return { horizontal: 'center', vertical: 'center' };
  if (parts.length === 1 && HORIZONTAL.includes(parts[0])) return { horizontal: parts[0] };
  if (parts.length === 1 && VERTICAL.includes(parts[0])) return { vertical: parts[0] };
  throw new InvalidArgumentError('left, center, right, top or bottom, or horizontal,vertical (center,bottom)');
}

/** `fit`, `fill` or a percent of the fitted size above 0 to 100 (`80%`). */
export function scaleFlag(value: string): string {
  const text = value.trim();
  if (text === 'fit' || text === 'fill') return text;
  const percent = /^\d{1,3}(\.\d{1,2})?%$/.test(text) ? Number(text.slice(0, -1)) : 0;
  if (percent <= 0 || percent > 100) throw new InvalidArgumentError('fit, fill or a percent above 0 to 100 (80%)');
  return text;
}

/** The `placement` member the flags ask for, or undefined when none was given. */
export function placementOf(flags: PlacementFlags): Record<string, unknown> | undefined {
  const given =
    flags.placementSize !== undefined ||
    flags.padding !== undefined ||
    flags.align !== undefined ||
    flags.scale !== undefined ||
    flags.shadowInBox !== undefined;
  if (!given) return undefined;
  return {
    width: flags.placementSize?.width,
    height: flags.placementSize?.height,
    padding: flags.padding,
    horizontal_alignment: flags.align?.horizontal,
    vertical_alignment: flags.align?.vertical,
    scale: flags.scale,
    shadow_in_box: flags.shadowInBox,
  };
}
