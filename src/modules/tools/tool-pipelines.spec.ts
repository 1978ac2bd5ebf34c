import { findPreset, ProductPhotoOperation } from '../catalog/product-photo-presets';
import { ToolId } from '../catalog/tools';
import { PRODUCT_PHOTO_TOOL, type ProductPhotoOptions, type ToolOptions } from './tool-options';
import { pipelineOf } from './tool-pipelines';

const productPhoto = (operation: ProductPhotoOperation, preset: string | null = null): ToolOptions => {
  const options: ProductPhotoOptions = {
    operation,
    preset: (preset && findPreset(preset)) || null,
    preservation_level: 'strict',
    instructions: null,
    output: { number_of_images: 1 },
  };
  return { tool: PRODUCT_PHOTO_TOOL[operation], options };
};

describe(pipelineOf.name, () => {
  it('runs each endpoint on its own tool', () => {
    const edit: ToolOptions = {
      tool: ToolId.ImageEditing,
      options: { operations: {}, output: { number_of_images: 1 } },
    };
    const scene: ToolOptions = {
      tool: ToolId.AiBackground,
      options: { scene: { prompt: 'a kitchen', shadow: 'natural' }, output: { number_of_images: 1 } },
    };
    expect([pipelineOf(edit), pipelineOf(scene)]).toEqual([ToolId.ImageEditing, ToolId.AiBackground]);
  });

  it('runs the product photo operations that cut the product out on the cut-out, whatever they are labelled', () => {
    expect(PRODUCT_PHOTO_TOOL[ProductPhotoOperation.StudioPackshot]).toBe(ToolId.ImageEditing);
    expect(pipelineOf(productPhoto(ProductPhotoOperation.StudioPackshot))).toBe(ToolId.RemoveBackground);
    expect(pipelineOf(productPhoto(ProductPhotoOperation.MarketplaceClean, 'amazon_main_image'))).toBe(
      ToolId.RemoveBackground,
    );
    expect(pipelineOf(productPhoto(ProductPhotoOperation.RemoveBackground))).toBe(ToolId.RemoveBackground);
    expect(pipelineOf(productPhoto(ProductPhotoOperation.ProductPhotoEnhance, 'shop_square_image'))).toBe(
      ToolId.RemoveBackground,
    );
  });

  it(
    'keeps enhancement on the editing pipeline when the ' + 'photo keeps its background, and the others on their tools',
    () => {
      expect(pipelineOf(productPhoto(ProductPhotoOperation.ProductPhotoEnhance))).toBe(ToolId.ImageEditing);
      expect(pipelineOf(productPhoto(ProductPhotoOperation.NaturalLifestyle))).toBe(ToolId.AiBackground);
      expect(pipelineOf(productPhoto(ProductPhotoOperation.PremiumAd))).toBe(ToolId.AdCreative);
    },
  );
});
