import { composite, compositeOnImage } from './compose/composite';
import { maskFromProbability } from './mask/cutout-mask';
import { existingCutout } from './mask/existing-alpha';
import { colourUnderTransparency, withAlpha } from './transparent-colour';
import { layOutAd } from './ad/ad-renderer';
import { preservedSubject } from './preserved-subject';
import { correctedPixels, productLayers, replacedBackground } from './corrections';
import { cutoutPixels } from './cutout-pixels';
import { interestingCrop } from './interesting-crop';
import { carriedBlocks } from './metadata/carried-blocks';

/**
 * The image engine's operations: every step of the tools that loops over pixels in JavaScript,
 * and every parser in JavaScript of what a customer's file says of itself (its metadata),
 * each a plain function of pixels and plain options (no framework, database or network), so the
 * same function runs in a unit test, directly, or in a thread of the worker's pool. Steps are
 * coarse on purpose: one operation is one trip to a thread, so a tool's pixel work between two
 * model calls or encodes is one operation. sharp, used inside several, runs on libvips' own
 * threads wherever it is called. The ad renderer is the ad tool's own drawing code, pure like
 * the rest (the lint rule for this folder covers it too).
 */
export const ENGINE_OPERATIONS = {
  /** The segmentation model's probabilities turned into the photo's cut-out mask (subject, props, holes, edges). */
  subjectMask: maskFromProbability,
  /** `existing_alpha` `use`: the source's own alpha as the mask, when it has meaningful transparency. */
  existingCutout,
  /** remove_background between the model and the encoder. */
  cutoutPixels,
  /** The product cut out with its corrections, cleaned colours and shadow (scenes). */
  productLayers,
  /** image_editing's polish, light, colour, saturation and sharpening. */
  correctedPixels,
  /** image_editing's `crop` window. */
  interestingCrop,
  /** image_editing's `background` and `shadow`. */
  replacedBackground,
  /** Layers over a flat background (or transparency). */
  composite,
  /** Layers over an image. */
  compositeOnImage,
  /** ai_edit's preservation of the product's own pixels. */
  preservedSubject,
  /** ad_creative's plan and pixels. */
  layOutAd,
  /** `upscale` of a transparent source: colour given to its transparent pixels before the model sees them. */
  colourUnderTransparency,
  /** `upscale` of a transparent source: the enlarged colour and the resampled alpha joined. */
  withAlpha,
  /** `output.metadata` `keep`: the source's EXIF fields and scrubbed XMP, read within their bounds. */
  carriedBlocks,
};

export type EngineOperations = typeof ENGINE_OPERATIONS;
export type OperationName = keyof EngineOperations;
export type OperationArgs<Name extends OperationName> = Parameters<EngineOperations[Name]>;
export type OperationResult<Name extends OperationName> = Awaited<ReturnType<EngineOperations[Name]>>;
