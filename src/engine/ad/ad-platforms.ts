import type { PixelBounds } from '../mask/alpha-mask';
import type { Size } from '../raw-image';

/** The platforms `POST /ad/create` offers: the request's list (the DTO validates it), so the two can never differ. */
export const AD_PLATFORMS = [
  'instagram_feed',
  'instagram_story',
  'facebook_feed',
  'pinterest',
  'tiktok',
  'google_display',
] as const;
export type AdPlatform = (typeof AD_PLATFORMS)[number];

/** A platform's canvas and the part of it where text may go. */
export interface PlatformFrame {
  canvas: Size;
  /** Text (the headline and the call to action) stays inside this rectangle; the product may reach past it. */
  safeZone: PixelBounds;
}

/** Pixels kept clear of text along each edge. */
interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

function framed(width: number, height: number, insets: Insets): PlatformFrame {
  return {
    canvas: { width, height },
    safeZone: {
      left: insets.left,
      top: insets.top,
      width: width - insets.left - insets.right,
      height: height - insets.top - insets.bottom,
    },
  };
}

const uniform = (margin: number): Insets => ({ top: margin, right: margin, bottom: margin, left: margin });

/** Share of the shorter side kept clear of text on a canvas no platform prescribes (a product photo preset's). */
const PRESET_MARGIN_SHARE = 0.06;

/** A product photo preset's canvas: no overlays are known, so text keeps a uniform margin from every edge. */
export function presetFrame(canvas: Size): PlatformFrame {
  return framed(
    canvas.width,
    canvas.height,
    uniform(Math.round(Math.min(canvas.width, canvas.height) * PRESET_MARGIN_SHARE)),
  );
}

/**
 * Full-screen vertical placements draw the app's own interface over the ad: the top 14 % (270 px)
 * holds the progress bar, account name or feed tabs, the bottom 20 % (384 px) the caption, reply
 * field and the ad's own action button. Text under them would be hidden, so it stays between.
 */
const VERTICAL_TOP = 270;
const VERTICAL_BOTTOM = 384;

/**
 * Each platform's recommended canvas, and why its safe zone has the shape it has. Feed placements
 * have no overlay but show the image in rounded cards, and sometimes as a crop (a profile grid
 * thumbnail, a smaller slot), so text keeps a uniform margin from every edge.
 */
export const PLATFORM_FRAMES: Readonly<Record<AdPlatform, PlatformFrame>> = {
  /** 4:5 feed post. The profile grid shows a narrower centre crop, so the side margin must outlast it. */
  instagram_feed: framed(1080, 1350, uniform(64)),
  /** 9:16 story: the overlays above and below, and a side margin off the phone's rounded screen edges. */
  instagram_story: framed(1080, 1920, { top: VERTICAL_TOP, right: 64, bottom: VERTICAL_BOTTOM, left: 64 }),
  /** 1.91:1 link ad: shown in a rounded card, cropped towards square in some placements. */
  facebook_feed: framed(1200, 628, uniform(48)),
  /** 2:3 pin: the grid rounds its corners and puts the save and menu buttons over them on hover. */
  pinterest: framed(1000, 1500, uniform(60)),
  /**
   * 9:16 in-feed video ad: the overlays above and below, and on the right the column of like,
   * comment, share and profile buttons (about 140 px), so the zone is narrower on that side.
   */
  tiktok: framed(1080, 1920, { top: VERTICAL_TOP, right: 140, bottom: VERTICAL_BOTTOM, left: 64 }),
  /**
   * 1.91:1 responsive display image. Google fits it into many slot shapes and may crop its edges.
   * Google's own guidance is to keep text out of these images (the ad adds its own headline), so
   * a caller may well leave the headline out for this platform.
   */
  google_display: framed(1200, 628, uniform(48)),
};
