import sharp from 'sharp';
import { drawShadow, type ShadowStyle } from '../compose/shadow';
import { subjectBounds, type PixelBounds } from '../mask/alpha-mask';
import { toRaw, type RawImage, type Size } from '../raw-image';
import {
  BUTTON_HEIGHT_EMS,
  layoutAd,
  placeTexts,
  type AdGoal,
  type AdLayout,
  type CtaKind,
  type CtaSlot,
  type TextSlot,
} from './ad-layout';
import type { AdPlatform, PlatformFrame } from './ad-platforms';
import { backdropSvg, DEFAULT_BRAND_COLOUR, paletteFor, veilSvg, type AdPalette, type AdStyle } from './ad-styles';
import { cleanText, fitText, type SetText, type TextAlign } from './ad-text';

/** Straight RGBA pixels, 8 bits a channel, row-major. */
export interface RgbaPixels {
  rgba: Buffer;
  width: number;
  height: number;
}

export interface AdInput {
  /** A cut-out product (transparent around it), or an opaque photo when no cut-out is available. */
  subject: RgbaPixels;
  platform: AdPlatform;
  /** A canvas other than the platform's (a product photo preset's), with its own safe zone. */
  frame?: PlatformFrame;
  goal: AdGoal;
  style: AdStyle;
  headline?: string;
  callToAction?: string;
  /** `#RRGGBB`; DEFAULT_BRAND_COLOUR when absent. */
  brandColor?: string;
  /** 0-based index among the request's `number_of_images`; see `layoutAd` for what it changes. */
  variant: number;
  /** A backdrop to use instead of the style's own (a generated scene, say); scaled to cover the canvas. */
  background?: RgbaPixels;
}

export interface AdTextBox extends PixelBounds {
  kind: 'headline' | 'call_to_action';
}

export interface AdRender {
  /** PNG, RGB (no alpha). */
  image: Buffer;
  width: number;
  height: number;
  /** Where the headline (with its rule) and the call to action (the button, or the link's ink) were drawn. */
  textBoxes: AdTextBox[];
  /** Where the product was drawn. */
  subjectBox: PixelBounds;
}

export interface SubjectPlacement {
  /** The part of the subject image with visible pixels. */
  crop: PixelBounds;
  /** Where that part goes on the canvas: scaled to fit the product's area whole. */
  box: PixelBounds;
  /** A cut-out (it has a transparent background) gets a shadow; a photo does not. */
  cutout: boolean;
}

export interface PlacedHeadline {
  text: SetText;
  /** Where the text's ink goes. */
  ink: PixelBounds;
  rule: PixelBounds;
  /** The text and its rule. */
  box: PixelBounds;
}

export interface PlacedCallToAction {
  kind: CtaKind;
  label: SetText;
  /** Where the label's ink goes. */
  ink: PixelBounds;
  /** The button, or the label alone for a link. */
  box: PixelBounds;
}

/** Everything decided before a pixel is painted: geometry, colours and the set texts. */
export interface AdPlan {
  style: AdStyle;
  layout: AdLayout;
  palette: AdPalette;
  subject: SubjectPlacement;
  headline: PlacedHeadline | null;
  callToAction: PlacedCallToAction | null;
}

/**
 * The ad for one source and variant, deterministic for its input. The steps, in order:
 * 1. layout: the platform's canvas and safe zone, the goal's emphasis and the variant's
 *    arrangement give the product's area and the text slots (`layoutAd`);
 * 2. typeset: the headline and call to action set at the largest size that fits their slots;
 * 3. place: the product scaled to fit its area whole, the texts placed in their slots;
 * 4. backdrop: the style's own (or the supplied background with veils behind the text);
 * 5. product: over a soft contact shadow when it is a cut-out;
 * 6. text: the headline with its rule, the button and its label.
 * Steps 4 to 6 are one libvips pipeline of layers over the backdrop, encoded as PNG: only the
 * product and its shadow are materialised as pixels, never the canvas.
 */
export async function renderAd(input: AdInput): Promise<AdRender> {
  return paintAd(input, await planAd(input));
}

/** Steps 1 to 3: where everything goes and how the texts are set. */
export async function planAd(input: AdInput): Promise<AdPlan> {
  checkPixels('subject', input.subject);
  if (input.background) checkPixels('background', input.background);
  const headline = cleanText(input.headline ?? '');
  const callToAction = cleanText(input.callToAction ?? '');
  const layout = layoutAd({
    platform: input.platform,
    frame: input.frame,
    goal: input.goal,
    variant: input.variant,
    headline: headline.length > 0,
    callToAction: callToAction.length > 0,
  });
  const palette = paletteFor(input.style, input.brandColor ?? DEFAULT_BRAND_COLOUR);
  const setHeadline = layout.headline && (await typesetHeadline(headline, layout.headline, palette, layout.align));
  const setCta =
    layout.callToAction && (await typesetCallToAction(callToAction, layout.callToAction, palette, layout.align));
  const placed = placeTexts(layout, setHeadline?.size ?? null, setCta?.size ?? null);
  return {
    style: input.style,
    layout,
    palette,
    subject: placeSubject(input.subject, layout.subjectArea),
    headline: setHeadline && placed.headline ? headlineAt(setHeadline, placed.headline, layout.align) : null,
    callToAction: setCta && placed.callToAction ? callToActionAt(setCta, placed.callToAction) : null,
  };
}

/** Steps 4 to 6: the plan painted. A plan without texts paints the same ad without them. */
export async function paintAd(input: AdInput, plan: AdPlan): Promise<AdRender> {
  const image = await (await adPipeline(input, plan)).png().toBuffer();
  const textBoxes: AdTextBox[] = [];
  if (plan.headline) textBoxes.push({ kind: 'headline', ...plan.headline.box });
  if (plan.callToAction) textBoxes.push({ kind: 'call_to_action', ...plan.callToAction.box });
  return { image, ...plan.layout.canvas, textBoxes, subjectBox: plan.subject.box };
}

/** Steps 1 to 6 as RGB pixels, for a caller that encodes them itself (the worker, through the image engine). */
export async function layOutAd(input: AdInput): Promise<RawImage> {
  return paintAdPixels(input, await planAd(input));
}

/** The ad as RGB pixels, for a caller that encodes it itself (the worker): no PNG in between. */
export async function paintAdPixels(input: AdInput, plan: AdPlan): Promise<RawImage> {
  return toRaw(await adPipeline(input, plan));
}

/** The layers over the backdrop, as one libvips pipeline that only materialises the product and its shadow. */
async function adPipeline(input: AdInput, plan: AdPlan): Promise<sharp.Sharp> {
  const layers = [
    ...backdropLayers(plan, input.background),
    ...(await productLayers(input.subject, plan)),
    ...textLayers(plan),
  ];
  return backdrop(plan, input.background).composite(layers).removeAlpha();
}

function checkPixels(name: string, pixels: RgbaPixels): void {
  if (pixels.width < 1 || pixels.height < 1 || pixels.rgba.length !== pixels.width * pixels.height * 4) {
    throw new Error(`${name}: ${pixels.rgba.length} bytes are not ${pixels.width} x ${pixels.height} RGBA pixels`);
  }
}

/** The rule under a headline, in its font size: distance from the ink, thickness, length. */
function ruleMetrics(fontSize: number) {
  return {
    gap: Math.round(fontSize * 0.45),
    thickness: Math.max(2, Math.round(fontSize * 0.09)),
    length: Math.round(fontSize * 1.6),
  };
}

interface SetHeadline {
  text: SetText;
  /** The text and its rule together. */
  size: Size;
}

/** The headline at the largest size that leaves room for its rule in the slot. */
async function typesetHeadline(
  text: string,
  slot: TextSlot,
  palette: AdPalette,
  align: TextAlign,
): Promise<SetHeadline> {
  // The rule's room at the largest size is enough at any smaller one.
  const largest = ruleMetrics(slot.maxFontSize);
  const room = { width: slot.box.width, height: slot.box.height - largest.gap - largest.thickness };
  const set = await fitText(text, { ...palette.headline, align }, room, slot.maxFontSize);
  const rule = ruleMetrics(set.fontSize);
  return {
    text: set,
    size: {
      width: Math.max(set.width, Math.min(slot.box.width, rule.length)),
      height: set.height + rule.gap + rule.thickness,
    },
  };
}

function headlineAt(set: SetHeadline, box: PixelBounds, align: TextAlign): PlacedHeadline {
  const rule = ruleMetrics(set.text.fontSize);
  const ruleWidth = Math.min(box.width, rule.length);
  const across = (width: number) => (align === 'centre' ? box.left + Math.floor((box.width - width) / 2) : box.left);
  return {
    text: set.text,
    ink: { left: across(set.text.width), top: box.top, width: set.text.width, height: set.text.height },
    rule: {
      left: across(ruleWidth),
      top: box.top + set.text.height + rule.gap,
      width: ruleWidth,
      height: rule.thickness,
    },
    box,
  };
}

/** Room on each side of a button's label, in label sizes. */
const BUTTON_PAD_EMS = 1.2;
/** A label's ink may be this many label sizes tall (accents above, descenders below). */
const LABEL_HEIGHT_EMS = 1.4;

interface SetCallToAction {
  kind: CtaKind;
  label: SetText;
  /** The button, or the label alone. */
  size: Size;
}

/**
 * A button is as tall as the goal's label size asks (however long the label) and as wide as its
 * label plus padding; a label too long for the slot is set smaller. A link is its label alone.
 */
async function typesetCallToAction(
  text: string,
  slot: CtaSlot,
  palette: AdPalette,
  align: TextAlign,
): Promise<SetCallToAction> {
  if (slot.kind === 'link') {
    const label = await fitText(text, { ...palette.link, align }, slot.box, slot.maxFontSize);
    return { kind: 'link', label, size: { width: label.width, height: label.height } };
  }
  const pad = Math.round(slot.maxFontSize * BUTTON_PAD_EMS);
  const room = { width: slot.box.width - 2 * pad, height: Math.round(slot.maxFontSize * LABEL_HEIGHT_EMS) };
  const label = await fitText(text, { ...palette.button.label, align: 'centre' }, room, slot.maxFontSize);
  return {
    kind: 'button',
    label,
    size: { width: label.width + 2 * pad, height: Math.round(slot.maxFontSize * BUTTON_HEIGHT_EMS) },
  };
}

/** The label's ink centred in its button. */
function callToActionAt(set: SetCallToAction, box: PixelBounds): PlacedCallToAction {
  const ink = {
    left: box.left + Math.floor((box.width - set.label.width) / 2),
    top: box.top + Math.floor((box.height - set.label.height) / 2),
    width: set.label.width,
    height: set.label.height,
  };
  return { kind: set.kind, label: set.label, ink, box };
}

/** Share of its area a cut-out fills, so its shadow has room below it inside the area. */
const CUTOUT_FILL = 0.9;

/**
 * The subject's visible part scaled to fit `area` whole, centred in it. A subject with any
 * pixel under half opacity has a transparent background: a cut-out.
 */
function placeSubject(subject: RgbaPixels, area: PixelBounds): SubjectPlacement {
  const alpha = new Uint8Array(subject.width * subject.height);
  let cutout = false;
  for (let i = 0; i < alpha.length; i++) {
    alpha[i] = subject.rgba[i * 4 + 3];
    if (alpha[i] < 128) cutout = true;
  }
  const crop = subjectBounds({ data: alpha, width: subject.width, height: subject.height }, 1);
  if (!crop) throw new Error('the subject image is fully transparent: there is no product to place');
  const fill = cutout ? CUTOUT_FILL : 1;
  const scale = Math.min((area.width * fill) / crop.width, (area.height * fill) / crop.height);
  const width = Math.max(1, Math.min(area.width, Math.round(crop.width * scale)));
  const height = Math.max(1, Math.min(area.height, Math.round(crop.height * scale)));
  const box = {
    left: area.left + Math.floor((area.width - width) / 2),
    top: area.top + Math.floor((area.height - height) / 2),
    width,
    height,
  };
  return { crop, box, cutout };
}

/** How close a supplied backdrop is brought in for the treatments that zoom. */
const BACKDROP_ZOOM = 1.25;

/**
 * Step 4: the style's own backdrop, or the supplied one scaled to cover the canvas. Variants of
 * one supplied backdrop still differ beyond mirroring: the treatment takes it as it is, flopped,
 * or brought closer.
 */
function backdrop(plan: AdPlan, background: RgbaPixels | undefined): sharp.Sharp {
  if (!background)
    return sharp(Buffer.from(backdropSvg(plan.style, plan.palette, plan.layout))).flatten({
      background: plan.palette.base,
    });
  const { width, height } = plan.layout.canvas;
  const zoom = plan.layout.treatment === 2 ? BACKDROP_ZOOM : 1;
  const covered = { width: Math.round(width * zoom), height: Math.round(height * zoom) };
  const pipeline = sharp(background.rgba, { raw: { width: background.width, height: background.height, channels: 4 } })
    .resize(covered.width, covered.height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' })
    .extract({
      left: Math.floor((covered.width - width) / 2),
      top: Math.floor((covered.height - height) / 2),
      width,
      height,
    })
    .flatten({ background: plan.palette.base });
  return plan.layout.treatment === 1 ? pipeline.flop() : pipeline;
}

/** Over a supplied backdrop, the veils behind the text; the style's own needs none. */
function backdropLayers(plan: AdPlan, background: RgbaPixels | undefined): sharp.OverlayOptions[] {
  return background ? [{ input: Buffer.from(veilSvg(plan.palette, plan.layout)), left: 0, top: 0 }] : [];
}

/** A contact shadow under a product standing in the ad; the light never moves between variants. */
const CUTOUT_SHADOW: ShadowStyle = { kind: 'soft', spread: 1, lean: 0 };
/**
 * Longer side of the grid a shadow is drawn on. A shadow is a blur, so drawing it coarse and
 * scaling it up loses nothing, and its pixel loops stay small whatever the canvas.
 */
const SHADOW_GRID = 256;

/**
 * Step 5: the product scaled into its box and, for a cut-out, its shadow beneath it. Laid over
 * the backdrop, the shadow darkens it and the product covers both by its alpha: the same
 * arithmetic as `compositeOnImage`, done by libvips in the painting pipeline.
 */
async function productLayers(subject: RgbaPixels, plan: AdPlan): Promise<sharp.OverlayOptions[]> {
  const { box, crop, cutout } = plan.subject;
  const product = await sharp(subject.rgba, { raw: { width: subject.width, height: subject.height, channels: 4 } })
    .extract(crop)
    .resize(box.width, box.height, { fit: 'fill', kernel: 'lanczos3' })
    .raw({ depth: 'uchar' })
    .toBuffer();
  const layer: sharp.OverlayOptions = {
    input: product,
    raw: { width: box.width, height: box.height, channels: 4 },
    left: box.left,
    top: box.top,
  };
  const shadow = cutout ? await shadowLayer(product, box, plan.layout.canvas) : null;
  return shadow ? [shadow, layer] : [layer];
}

/**
 * The product's shadow as a black layer whose alpha is the shadow's opacity, on a tile around the product (null: none).
 */
async function shadowLayer(product: Buffer, box: PixelBounds, canvas: Size): Promise<sharp.OverlayOptions | null> {
  // Room for the shadow below and beside the product, inside the canvas.
  const pad = Math.round(Math.max(box.width, box.height) * 0.12);
  const left = Math.max(0, box.left - pad);
  const top = Math.max(0, box.top - pad);
  const tile = {
    width: Math.min(canvas.width, box.left + box.width + pad) - left,
    height: Math.min(canvas.height, box.top + box.height + pad) - top,
  };
  const scale = Math.min(1, SHADOW_GRID / Math.max(tile.width, tile.height));
  const grid = {
    width: Math.max(1, Math.round(tile.width * scale)),
    height: Math.max(1, Math.round(tile.height * scale)),
  };
  const inGrid = {
    left: Math.round((box.left - left) * scale),
    top: Math.round((box.top - top) * scale),
    width: Math.max(1, Math.round(box.width * scale)),
    height: Math.max(1, Math.round(box.height * scale)),
  };
  const alpha = await sharp(product, { raw: { width: box.width, height: box.height, channels: 4 } })
    .extractChannel(3)
    .resize(inGrid.width, inGrid.height, { fit: 'fill' })
    .raw({ depth: 'uchar' })
    .toBuffer();
  const mask = new Uint8Array(grid.width * grid.height);
  for (let y = 0; y < inGrid.height && inGrid.top + y < grid.height; y++) {
    for (let x = 0; x < inGrid.width && inGrid.left + x < grid.width; x++)
      mask[(inGrid.top + y) * grid.width + inGrid.left + x] = alpha[y * inGrid.width + x];
  }
  const shadow = await drawShadow({ data: mask, ...grid }, CUTOUT_SHADOW);
  if (!shadow) return null;
  const black = Buffer.alloc(grid.width * grid.height * 4);
  for (let i = 0; i < shadow.data.length; i++) black[i * 4 + 3] = shadow.data[i];
  const scaled = await sharp(black, { raw: { ...grid, channels: 4 } })
    .resize(tile.width, tile.height, { fit: 'fill' })
    .raw({ depth: 'uchar' })
    .toBuffer();
  return { input: scaled, raw: { ...tile, channels: 4 }, left, top };
}

/** Step 6: the headline and its rule, the button and its label. */
function textLayers(plan: AdPlan): sharp.OverlayOptions[] {
  const layers: sharp.OverlayOptions[] = [];
  const { headline, callToAction, palette } = plan;
  if (headline) {
    const { rule } = headline;
    layers.push(
      {
        input: { create: { width: rule.width, height: rule.height, channels: 4, background: palette.rule } },
        left: rule.left,
        top: rule.top,
      },
      textLayer(headline.text, headline.ink),
    );
  }
  if (callToAction) {
    const { box } = callToAction;
    if (callToAction.kind === 'button')
      layers.push({ input: Buffer.from(buttonSvg(box, palette)), left: box.left, top: box.top });
    layers.push(textLayer(callToAction.label, callToAction.ink));
  }
  return layers;
}

function textLayer(text: SetText, at: PixelBounds): sharp.OverlayOptions {
  return { input: text.rgba, raw: { width: text.width, height: text.height, channels: 4 }, left: at.left, top: at.top };
}

/** A pill: fully rounded ends, the palette's fill, and its outline drawn inside the box. */
function buttonSvg(box: Size, palette: AdPalette): string {
  const { fill, outline } = palette.button;
  const inset = outline ? 1 : 0;
  const height = box.height - 2 * inset;
  const stroke = outline ? ` stroke="${outline}" stroke-width="2"` : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${box.width}" height="${box.height}">
    <rect x="${inset}" y="${inset}" width="${box.width - 2 * inset}" height="${height}" rx="${height / 2}" ` +
    `fill="${fill}"${stroke}/>
  </svg>`
  );
}
