import type { PixelBounds } from '../mask/alpha-mask';
import type { Size } from '../raw-image';
import { PLATFORM_FRAMES, type AdPlatform, type PlatformFrame } from './ad-platforms';
import type { TextAlign } from './ad-text';

/** The goals `POST /ad/create` offers: the request's list (the DTO validates it), so the two can never differ. */
export const AD_GOALS = ['awareness', 'consideration', 'conversion'] as const;
export type AdGoal = (typeof AD_GOALS)[number];

/** A call to action is drawn as a button, or as a plain line of text where it should not compete. */
export type CtaKind = 'button' | 'link';

/**
 * What each goal puts first.
 * - awareness: the product is the message. It gets about three quarters of a tall canvas's
 *   safe zone (two thirds of a wide one); the headline is small; a call to action, if given, is
 *   a small text link, never a button.
 * - consideration: product and headline in balance. The headline gets the most room (a quarter
 *   of a tall canvas, half of a wide one) and the largest type; the call to action is a modest
 *   button; the product keeps about three fifths.
 * - conversion: the call to action is a large button in the brand colour (see the styles); the
 *   headline is medium; the product keeps about two thirds of a tall canvas, half of a wide one.
 * No goal invents copy: without a headline or a call to action given, the product takes the room.
 */
interface Emphasis {
  /** Tall canvases: share of the safe zone's height for the headline. */
  headlineShare: number;
  /** Wide canvases: share of the safe zone's width for the column of text beside the product. */
  columnShare: number;
  /** Largest headline size, as a share of the type unit. */
  headlineSize: number;
  /** The call to action's label size, as a share of the type unit. */
  ctaSize: number;
  cta: CtaKind;
}

const EMPHASIS: Readonly<Record<AdGoal, Emphasis>> = {
  awareness: { headlineShare: 0.14, columnShare: 0.32, headlineSize: 0.05, ctaSize: 0.03, cta: 'link' },
  consideration: { headlineShare: 0.24, columnShare: 0.5, headlineSize: 0.08, ctaSize: 0.036, cta: 'button' },
  conversion: { headlineShare: 0.18, columnShare: 0.46, headlineSize: 0.066, ctaSize: 0.05, cta: 'button' },
};

/** A button's height in label sizes: room for the label and an even pad above and below it. */
export const BUTTON_HEIGHT_EMS = 2.4;
/** A link's slot height in label sizes: the label's ascenders and descenders. */
const LINK_HEIGHT_EMS = 1.6;
/** The styles' background treatments that variants cycle through (after mirroring). */
const TREATMENTS = 3;

/** Where a text may go (its whole ink stays inside `box`) and the largest size it is set at. */
export interface TextSlot {
  box: PixelBounds;
  maxFontSize: number;
}

export interface CtaSlot extends TextSlot {
  kind: CtaKind;
}

export interface AdLayout {
  canvas: Size;
  safeZone: PixelBounds;
  /** The product is scaled to fit inside this, whole. */
  subjectArea: PixelBounds;
  headline: TextSlot | null;
  callToAction: CtaSlot | null;
  align: TextAlign;
  /**
   * The headline sits right above the call to action, the pair centred in their two slots;
   * otherwise each is centred in its own slot (on either side of the product).
   */
  stacked: boolean;
  /** Space between the headline and the call to action when stacked. */
  gap: number;
  /** Product and text swap places: up and down on a tall canvas, left and right on a wide one. */
  mirrored: boolean;
  /** Which of the style's background treatments is drawn, 0 .. TREATMENTS - 1. */
  treatment: number;
}

export interface LayoutRequest {
  platform: AdPlatform;
  /** A canvas other than the platform's (a product photo preset's), with its own safe zone. */
  frame?: PlatformFrame;
  goal: AdGoal;
  /** 0-based; consecutive variants mirror, and every second one takes the next treatment. */
  variant: number;
  headline: boolean;
  callToAction: boolean;
}

/**
 * The ad's geometry. Tall canvases stack the parts: headline, product, call to action (mirrored:
 * product on top, headline and call to action below it). Wide canvases put a column of text
 * beside the product (mirrored: on the other side). Text slots lie inside the platform's safe
 * zone, and so does the product's area.
 */
export function layoutAd(request: LayoutRequest): AdLayout {
  const { canvas, safeZone } = request.frame ?? PLATFORM_FRAMES[request.platform];
  const emphasis = EMPHASIS[request.goal];
  // Text scales with the narrower side; a wide canvas's column has room across, so its height counts for more.
  const typeUnit = Math.min(canvas.width, canvas.height * 1.25);
  const ctaFontSize = Math.round(emphasis.ctaSize * typeUnit);
  const parts: Parts = {
    headline: request.headline,
    callToAction: request.callToAction,
    mirrored: request.variant % 2 === 1,
    headlineFontSize: Math.round(emphasis.headlineSize * typeUnit),
    ctaFontSize,
    ctaHeight: Math.ceil(ctaFontSize * (emphasis.cta === 'button' ? BUTTON_HEIGHT_EMS : LINK_HEIGHT_EMS)),
  };
  const arrangement =
    canvas.width > canvas.height ? besideLayout(safeZone, emphasis, parts) : stackedLayout(safeZone, emphasis, parts);
  return {
    canvas,
    safeZone,
    mirrored: parts.mirrored,
    treatment: Math.floor(request.variant / 2) % TREATMENTS,
    ...arrangement,
  };
}

interface Parts {
  headline: boolean;
  callToAction: boolean;
  mirrored: boolean;
  headlineFontSize: number;
  ctaFontSize: number;
  /** The call to action's slot height on a tall canvas. */
  ctaHeight: number;
}

type Arrangement = Pick<AdLayout, 'subjectArea' | 'headline' | 'callToAction' | 'align' | 'stacked' | 'gap'>;

type Row = 'headline' | 'subject' | 'cta';

function stackedLayout(safeZone: PixelBounds, emphasis: Emphasis, parts: Parts): Arrangement {
  const gap = Math.round(safeZone.height * 0.03);
  const heights: Record<Row, number> = {
    headline: parts.headline ? Math.round(safeZone.height * emphasis.headlineShare) : 0,
    cta: parts.callToAction ? parts.ctaHeight : 0,
    subject: 0,
  };
  const order: Row[] = parts.mirrored ? ['subject', 'headline', 'cta'] : ['headline', 'subject', 'cta'];
  const present = order.filter((row) => row === 'subject' || heights[row] > 0);
  heights.subject = safeZone.height - heights.headline - heights.cta - gap * (present.length - 1);
  const box = (row: Row): PixelBounds => {
    const above = present.slice(0, present.indexOf(row));
    const top = above.reduce((sum, part) => sum + heights[part] + gap, safeZone.top);
    return { left: safeZone.left, top, width: safeZone.width, height: heights[row] };
  };
  return {
    subjectArea: box('subject'),
    headline: parts.headline ? { box: box('headline'), maxFontSize: parts.headlineFontSize } : null,
    callToAction: parts.callToAction ? { box: box('cta'), maxFontSize: parts.ctaFontSize, kind: emphasis.cta } : null,
    align: 'centre',
    // Mirrored, the headline and the call to action are neighbours below the product.
    stacked: parts.mirrored,
    gap,
  };
}

function besideLayout(safeZone: PixelBounds, emphasis: Emphasis, parts: Parts): Arrangement {
  if (!parts.headline && !parts.callToAction) {
    return { subjectArea: safeZone, headline: null, callToAction: null, align: 'left', stacked: false, gap: 0 };
  }
  const gap = Math.round(safeZone.width * 0.04);
  const columnWidth = Math.round(safeZone.width * emphasis.columnShare);
  const subjectWidth = safeZone.width - columnWidth - gap;
  const columnLeft = parts.mirrored ? safeZone.left + subjectWidth + gap : safeZone.left;
  const column = (top: number, height: number): PixelBounds => ({ left: columnLeft, top, width: columnWidth, height });
  const rowGap = Math.round(safeZone.height * 0.05);
  // Alone, either text has the whole column and is centred in it.
  const ctaHeight = parts.headline ? parts.ctaHeight : safeZone.height;
  const headlineHeight = parts.callToAction ? safeZone.height - ctaHeight - rowGap : safeZone.height;
  const bottom = safeZone.top + safeZone.height;
  return {
    subjectArea: {
      left: parts.mirrored ? safeZone.left : columnLeft + columnWidth + gap,
      top: safeZone.top,
      width: subjectWidth,
      height: safeZone.height,
    },
    headline: parts.headline
      ? { box: column(safeZone.top, headlineHeight), maxFontSize: parts.headlineFontSize }
      : null,
    callToAction: parts.callToAction
      ? { box: column(bottom - ctaHeight, ctaHeight), maxFontSize: parts.ctaFontSize, kind: emphasis.cta }
      : null,
    align: 'left',
    stacked: true,
    gap: rowGap,
  };
}

/** Where the headline block and the call to action go, given their sizes (null: not drawn). */
export interface TextPlacement {
  headline: PixelBounds | null;
  callToAction: PixelBounds | null;
}

/**
 * Places the set texts in their slots. Stacked, the headline goes right above the call to
 * action and the pair is centred in the span of both slots, so a short headline does not leave
 * a hole between them; otherwise each is centred in its own slot. Across, each follows `align`.
 */
export function placeTexts(layout: AdLayout, headline: Size | null, callToAction: Size | null): TextPlacement {
  const across = (slot: PixelBounds, size: Size) =>
    layout.align === 'centre' ? slot.left + Math.floor((slot.width - size.width) / 2) : slot.left;
  const at = (slot: PixelBounds, size: Size, top: number): PixelBounds => ({ left: across(slot, size), top, ...size });
  const centredIn = (slot: PixelBounds, size: Size) =>
    at(slot, size, slot.top + Math.floor((slot.height - size.height) / 2));
  const headlineSlot = layout.headline?.box;
  const ctaSlot = layout.callToAction?.box;
  if (layout.stacked && headlineSlot && ctaSlot && headline && callToAction) {
    const spanTop = Math.min(headlineSlot.top, ctaSlot.top);
    const spanBottom = Math.max(headlineSlot.top + headlineSlot.height, ctaSlot.top + ctaSlot.height);
    const groupHeight = headline.height + layout.gap + callToAction.height;
    const top = spanTop + Math.floor((spanBottom - spanTop - groupHeight) / 2);
    return {
      headline: at(headlineSlot, headline, top),
      callToAction: at(ctaSlot, callToAction, top + headline.height + layout.gap),
    };
  }
  return {
    headline: headlineSlot && headline ? centredIn(headlineSlot, headline) : null,
    callToAction: ctaSlot && callToAction ? centredIn(ctaSlot, callToAction) : null,
  };
}
