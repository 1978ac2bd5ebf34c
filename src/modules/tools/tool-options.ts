import type { AdGoal } from '../../engine/ad/ad-layout';
import type { AdPlatform } from '../../engine/ad/ad-platforms';
import type { AdStyle } from '../../engine/ad/ad-styles';
import type { ShadowKind } from '../../engine/compose/shadow';
import type { PreservationLevel } from '../../engine/preserved-subject';
import { ProductPhotoOperation, type ProductPhotoPreset } from '../catalog/product-photo-presets';
import { ToolId } from '../catalog/tools';

/**
 * A job's tool options exactly as they are stored in its jsonb `options` column, snake_case as
 * the create requests spell them, with their defaults applied. Jobs stored before a member
 * existed lack it, so such members stay optional and are defaulted where they are read.
 */

/** Whether a result's file keeps what it may of its source's metadata, or nothing. */
export type MetadataChoice = 'strip' | 'keep';

/**
 * Every job stores how many variants each source has, so a worker knows which variant a result
 * is, and the client's choices for the file: `metadata` always, `quality` and `dpi` when given.
 * Jobs stored before these choices existed have none of them.
 */
export type StoredOutput = {
  number_of_images: number;
  quality?: number;
  dpi?: number;
  metadata?: MetadataChoice;
  /** webp only; absent (stored before it existed, or not asked) is lossy. */
  lossless?: boolean;
};

/** How much of the photo's own product an AI edit keeps: the image engine's own levels. */
export type { PreservationLevel };
export type CutoutChannels = 'rgba' | 'alpha';
export type EditBackgroundType = 'original' | 'transparent' | 'white' | 'color' | 'image' | 'blur';
export type ResizeFit = 'contain' | 'cover' | 'crop';

/**
 * Whether a source's own transparency is its mask (`use`: it is not segmented) or is flattened and
 * segmented like any photo (`ignore`, the default). Stored as the request gave it; absent is `ignore`.
 */
export type ExistingAlpha = 'ignore' | 'use';

/** A background photo's fit, and a blur of the photo's own background, as the create requests store them. */
export type StoredBackdropFit = 'cover' | 'contain';
/** Stored with both members; typed optional because the DTO's nested instance is stored as it is for `image/edit`. */
export type StoredBlur = { mode?: 'gaussian' | 'bokeh'; strength?: number };

/**
 * A background as the create requests give it: `type`; for `color`, the colour; for `image`, the
 * photo's URL, its fit (stored with its default) and the colour it is contained on; for `blur`,
 * the blur (stored with its defaults). Jobs stored before photos and blurs have neither.
 */
export type StoredBackground = {
  type?: string;
  color?: string;
  image_url?: string;
  fit?: StoredBackdropFit;
  blur?: StoredBlur;
};

/** One side's padding as a job stores it: whole pixels, or "N%" of the canvas side in its direction. */
export type StoredPaddingLength = number | string;
export type StoredPadding = {
  top: StoredPaddingLength;
  right: StoredPaddingLength;
  bottom: StoredPaddingLength;
  left: StoredPaddingLength;
};

/** `placement` (remove-background) and `operations.placement` (image/edit), defaults applied. */
export type StoredPlacement = {
  /** Both or neither; neither is the source's size. */
  width?: number;
  height?: number;
  padding: StoredPadding;
  horizontal_alignment: 'left' | 'center' | 'right';
  vertical_alignment: 'top' | 'center' | 'bottom';
  /** `fit`, `fill` or "N%". */
  scale: string;
  shadow_in_box: boolean;
};

/** `POST /remove-background`. */
export type RemoveBackgroundOptions = {
  background: StoredBackground & { type: 'transparent' | 'white' | 'color' | 'image' | 'blur'; shadow: ShadowKind };
  /** `channels` is absent from jobs created before masks were offered (they are `rgba`). */
  output: StoredOutput & {
    crop_to_subject: boolean;
    margin_percent: number;
    channels?: CutoutChannels;
    format?: string;
  };
  existing_alpha?: ExistingAlpha;
  /** The segmentation model the request names; absent, the default model. */
  segmentation_model?: string;
  /** Absent when the request has none (and in jobs stored before it existed): the source's frame. */
  placement?: StoredPlacement;
};

/** The operations of `POST /image/edit`, each optional. */
export type EditOperations = {
  adjustments?: { light?: boolean; color?: boolean };
  background?: StoredBackground & { type?: EditBackgroundType; shadow?: ShadowKind };
  resizing?: { width?: number; height?: number; fit?: ResizeFit };
  restorations?: { upscale?: boolean; polish?: boolean };
  placement?: StoredPlacement;
};

/** `POST /image/edit`. */
export type ImageEditOptions = {
  operations: EditOperations;
  output: StoredOutput;
  existing_alpha?: ExistingAlpha;
  /** The segmentation model the request names; absent, the default model. */
  segmentation_model?: string;
};

/** `POST /image/ai-edit`. */
export type ImageAiEditOptions = {
  options: { prompt: string; aspect_ratio?: string; preservation_level?: PreservationLevel };
  output: StoredOutput;
};

/** `POST /scene/create`. */
export type SceneOptions = {
  scene: { prompt: string; shadow: ShadowKind; aspect_ratio?: string };
  output: StoredOutput;
};

/** `POST /image/generate`. */
export type ImageGenerationOptions = { prompt: string; options: { aspect_ratio?: string }; output: StoredOutput };

/** `POST /ad/create`. */
export type AdCreativeOptions = {
  creative: {
    platform: AdPlatform;
    goal: AdGoal;
    style: AdStyle;
    headline?: string;
    call_to_action?: string;
    brand_color?: string;
  };
  output: StoredOutput;
};

/** `POST /product-photo-jobs`: the operation, its preset (stored whole), and what the client asked for. */
export type ProductPhotoOptions = {
  operation: ProductPhotoOperation;
  preset: ProductPhotoPreset | null;
  /** Always stored by the create builder; read as `strict` where absent. */
  preservation_level?: PreservationLevel;
  instructions: string | null;
  /** The segmentation model the request names; absent, the default model. */
  segmentation_model?: string;
  output: StoredOutput;
};

/** Which tool each product photo operation is labelled, priced and admitted as (contract section 5). */
export const PRODUCT_PHOTO_TOOL = {
  [ProductPhotoOperation.ProductPhotoEnhance]: ToolId.ImageEditing,
  [ProductPhotoOperation.RemoveBackground]: ToolId.RemoveBackground,
  [ProductPhotoOperation.StudioPackshot]: ToolId.ImageEditing,
  [ProductPhotoOperation.MarketplaceClean]: ToolId.ImageEditing,
  [ProductPhotoOperation.NaturalLifestyle]: ToolId.AiBackground,
  [ProductPhotoOperation.PremiumAd]: ToolId.AdCreative,
} as const satisfies Record<ProductPhotoOperation, ToolId>;

/** A product photo job: its tool is the one its operation is labelled as (PRODUCT_PHOTO_TOOL). */
type ProductPhotoJob = { tool: (typeof PRODUCT_PHOTO_TOOL)[ProductPhotoOperation]; options: ProductPhotoOptions };

/**
 * A job's tool and its options: one member per create endpoint, and one per product photo
 * operation (told apart from its tool's own options by `operation`).
 */
export type ToolOptions =
  | { tool: ToolId.RemoveBackground; options: RemoveBackgroundOptions }
  | { tool: ToolId.ImageEditing; options: ImageEditOptions }
  | { tool: ToolId.ImageAiEdit; options: ImageAiEditOptions }
  | { tool: ToolId.AiBackground; options: SceneOptions }
  | { tool: ToolId.ImageGeneration; options: ImageGenerationOptions }
  | { tool: ToolId.AdCreative; options: AdCreativeOptions }
  | ProductPhotoJob;

/** Whether options are a product photo operation's rather than their tool's own endpoint's. */
export function isProductPhoto(options: ToolOptions['options']): options is ProductPhotoOptions {
  return 'operation' in options;
}

/** Whether a `background` operation replaces the background (transparent, white or a colour): for existing_alpha. */
export function replacesBackground(background: EditOperations['background']): boolean {
  return (background?.type ?? 'original') !== 'original';
}

/** Whether a `background` operation cuts the subject out: for a new background, or for a shadow drawn from its mask. */
export function cutsSubjectOut(background: EditOperations['background']): boolean {
  return (background?.type ?? 'original') !== 'original' || (background?.shadow ?? 'none') !== 'none';
}
