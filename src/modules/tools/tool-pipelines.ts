import { ProductPhotoOperation } from '../catalog/product-photo-presets';
import { ToolId } from '../catalog/tools';
import { isProductPhoto, type ProductPhotoOptions, type ToolOptions } from './tool-options';

/**
 * The tool whose pipeline a product photo operation runs on. Its job keeps the tool it is
 * labelled, priced and admitted as (PRODUCT_PHOTO_TOOL); the operations that cut the product out
 * run on the cut-out, whatever their label.
 */
function productPhotoPipeline(options: ProductPhotoOptions): ToolId {
  switch (options.operation) {
    case ProductPhotoOperation.RemoveBackground:
    case ProductPhotoOperation.StudioPackshot:
    case ProductPhotoOperation.MarketplaceClean:
      return ToolId.RemoveBackground;
    case ProductPhotoOperation.ProductPhotoEnhance:
      // Enhancing keeps the photo's background unless its preset replaces it (white or transparent).
      return !options.preset || options.preset.background === 'original'
        ? ToolId.ImageEditing
        : ToolId.RemoveBackground;
    case ProductPhotoOperation.NaturalLifestyle:
      return ToolId.AiBackground;
    case ProductPhotoOperation.PremiumAd:
      return ToolId.AdCreative;
  }
}

/**
 * The tool whose pipeline runs a job's results: its own, or for a product photo operation the one that really does it.
 */
export function pipelineOf(job: ToolOptions): ToolId {
  return isProductPhoto(job.options) ? productPhotoPipeline(job.options) : job.tool;
}
