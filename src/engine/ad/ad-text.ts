import sharp from 'sharp';
import { subjectBounds } from '../mask/alpha-mask';
import type { Size } from '../raw-image';

/** The weights of Inter the ads are set in. */
export type InterWeight = 300 | 400 | 700 | 800;

/**
 * Inter's files from `@expo-google-fonts/inter` (MIT AND OFL-1.1), resolved once per process.
 * The project ships its own font so an ad looks the same on every machine: libvips registers a
 * file with fontconfig the first time it is named and keeps it, so each is loaded once.
 */
const INTER_FILES: Readonly<Record<InterWeight, string>> = {
  300: require.resolve('@expo-google-fonts/inter/300Light/Inter_300Light.ttf'),
  400: require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf'),
  700: require.resolve('@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf'),
  800: require.resolve('@expo-google-fonts/inter/800ExtraBold/Inter_800ExtraBold.ttf'),
};

/** Below this the text would be unreadable in any placement; a box that needs less is a layout bug. */
const MIN_FONT_SIZE = 8;

export type TextAlign = 'left' | 'centre';

export interface TextStyle {
  weight: InterWeight;
  /** Extra space between letters as a share of the font size; negative tightens. */
  tracking: number;
  /** `#RRGGBB`. */
  colour: string;
  /** How the wrapped lines line up with each other. */
  align: TextAlign;
}

/** Text rendered and cropped to its ink: straight RGBA, `width` x `height`. */
export interface SetText {
  rgba: Buffer;
  width: number;
  height: number;
  /** Font size in pixels (Pango points at 72 dpi). */
  fontSize: number;
  wrap: TextWrap;
}

/**
 * User text as one line: control characters (XML markup may not hold most of them) and line
 * breaks become spaces, since the layout decides where lines break; runs of spaces become one and
 * the ends are trimmed. No-break spaces stay, they keep words together. Text with nothing visible
 * (spaces, and characters Unicode says to ignore when they cannot be shown, such as zero-width
 * spaces and variation selectors) is empty: there is nothing to draw, and libvips refuses to.
 */
export function cleanText(text: string): string {
  const line = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return /[^\p{Z}\p{Default_Ignorable_Code_Point}]/u.test(line) ? line : '';
}

/** Text made literal inside Pango markup: user text never opens a tag or an entity. */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** How lines break: between words only, or also inside a word too long for the line. */
export type TextWrap = 'word' | 'word-char';

/**
 * `text` (visible: see `cleanText`) at `fontSize`, wrapped to `wrapWidth`, cropped to its ink.
 * `fallback="false"` keeps Pango from borrowing glyphs from the host's fonts: a character Inter
 * lacks shows as a box, the same on every machine.
 */
export async function renderText(
  text: string,
  style: TextStyle,
  fontSize: number,
  wrapWidth: number,
  wrap: TextWrap,
): Promise<SetText> {
  const letterSpacing = Math.round(style.tracking * fontSize * 1024);
  const markup =
    `<span font_weight="${style.weight}" letter_spacing="${letterSpacing}" ` +
    `foreground="${style.colour}" fallback="false">` +
    `${escapeMarkup(text)}</span>`;
  const { data, info } = await sharp({
    text: {
      text: markup,
      font: `Inter ${fontSize}`,
      fontfile: INTER_FILES[style.weight],
      width: Math.max(1, Math.floor(wrapWidth)),
      dpi: 72,
      wrap,
      align: style.align === 'centre' ? 'centre' : 'left',
      rgba: true,
    },
  })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return croppedToInk(data, info.width, info.height, fontSize, wrap);
}

/**
 * `text` at the largest size up to `maxFontSize` whose ink fits `box`, wrapped to the box's width.
 * Every size returned was rendered and measured, so the text is never cut: too wide or too tall,
 * it is set smaller. Words stay whole while a line fits at a readable size (two fifths of the
 * largest); a word too long for the box even then (a long compound, a URL) is broken between
 * characters rather than shrunk further.
 */
export async function fitText(text: string, style: TextStyle, box: Size, maxFontSize: number): Promise<SetText> {
  const readable = Math.max(MIN_FONT_SIZE, Math.round(maxFontSize * 0.4));
  const whole = await largestFitting(text, style, box, maxFontSize, 'word', readable);
  if (whole !== 'does-not-fit') return whole;
  const broken = await largestFitting(text, style, box, maxFontSize, 'word-char', MIN_FONT_SIZE);
  if (broken !== 'does-not-fit') return broken;
  throw new Error(`"${text}" does not fit ${box.width} x ${box.height} px even at ${MIN_FONT_SIZE} px`);
}

/**
 * The largest size from `maxFontSize` down at which the text fits. A
 * line too wide gives up at `narrowFloor`, too many lines at MIN_FONT_SIZE. The overflow ratio
 * finds a fitting size in a step or two; a bisection between it and the last size that did not
 * fit then takes back what the ratio gave away where the smaller size needed fewer lines.
 */
async function largestFitting(
  text: string,
  style: TextStyle,
  box: Size,
  maxFontSize: number,
  wrap: TextWrap,
  narrowFloor: number,
): Promise<SetText | 'does-not-fit'> {
  const fits = (set: SetText) => set.width <= box.width && set.height <= box.height;
  let tooBig = Math.floor(maxFontSize) + 1;
  let size = Math.floor(maxFontSize);
  let fitting: SetText | null = null;
  while (!fitting) {
    const set = await renderText(text, style, size, box.width, wrap);
    if (fits(set)) {
      fitting = set;
      continue;
    }
    const floor = set.width > box.width ? narrowFloor : MIN_FONT_SIZE;
    if (size <= floor) return 'does-not-fit';
    tooBig = size;
    const ratio = Math.min(box.width / set.width, box.height / set.height);
    size = Math.max(floor, Math.min(size - 1, Math.floor(size * ratio)));
  }
  // Sizes within 3 % of each other look the same; stopping there saves renders.
  while (tooBig - fitting.fontSize > Math.max(1, fitting.fontSize * 0.03)) {
    const middle = Math.floor((fitting.fontSize + tooBig) / 2);
    const set = await renderText(text, style, middle, box.width, wrap);
    if (fits(set)) fitting = set;
    else tooBig = middle;
  }
  return fitting;
}

/** The part of a rendered text that carries ink (libvips pads some glyphs' extents). */
function croppedToInk(rgba: Buffer, width: number, height: number, fontSize: number, wrap: TextWrap): SetText {
  const alpha = new Uint8Array(width * height);
  for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3];
  const ink = subjectBounds({ data: alpha, width, height }, 1);
  // libvips refuses text without ink before it gets here.
  if (!ink) throw new Error('the rendered text has no ink');
  if (ink.width === width && ink.height === height) return { rgba, width, height, fontSize, wrap };
  const cropped = Buffer.alloc(ink.width * ink.height * 4);
  for (let row = 0; row < ink.height; row++) {
    const start = ((ink.top + row) * width + ink.left) * 4;
    rgba.copy(cropped, row * ink.width * 4, start, start + ink.width * 4);
  }
  return { rgba: cropped, width: ink.width, height: ink.height, fontSize, wrap };
}
