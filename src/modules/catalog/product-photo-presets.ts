import type { OutputFormat } from '../../core/image/output-format';
export enum ProductPhotoOperation {
  ProductPhotoEnhance = 'product_photo_enhance',
  RemoveBackground = 'remove_background',
  StudioPackshot = 'studio_packshot',
  MarketplaceClean = 'marketplace_clean',
  NaturalLifestyle = 'natural_lifestyle',
  PremiumAd = 'premium_ad',
}

/** The price row of a product photo operation: each operation has its own. */
export const productPhotoCostKey = (operation: ProductPhotoOperation) => `product_photo.${operation}`;

export type PresetBackground = 'white' | 'transparent' | 'original' | 'generated_scene';

export interface ProductPhotoPreset {
  id: string;
  name: string;
  /** The marketplace or channel the preset targets. */
  channel: string;
  description: string;
  operation: ProductPhotoOperation;
  /** Output size in pixels; null keeps the source size. */
  width: number | null;
  height: number | null;
  format: OutputFormat;
  background: PresetBackground;
}

/**
 * Channel presets, following each channel's published image guidance (sizes that allow zoom,
 * pure white backgrounds where a marketplace requires them).
 */
export const PRODUCT_PHOTO_PRESETS: readonly ProductPhotoPreset[] = [
  {
    id: 'amazon_main_image',
    name: 'Amazon main image',
    channel: 'amazon',
    description:
      'Pure white background (RGB 255,255,255), product filling about 85% of the frame, 2000 px ' +
      'square so zoom is enabled.',
    operation: ProductPhotoOperation.MarketplaceClean,
    width: 2000,
    height: 2000,
    format: 'jpg',
    background: 'white',
  },
  {
    id: 'amazon_lifestyle_image',
    name: 'Amazon secondary lifestyle image',
    channel: 'amazon',
    description: 'The product in a natural, in-use setting for the secondary image slots.',
    operation: ProductPhotoOperation.NaturalLifestyle,
    width: 2000,
    height: 2000,
    format: 'jpg',
    background: 'generated_scene',
  },
  {
    id: 'ebay_listing_image',
    name: 'eBay listing image',
    channel: 'ebay',
    description: 'Clean white background, 1600 px square, the size eBay recommends for zoom.',
    operation: ProductPhotoOperation.MarketplaceClean,
    width: 1600,
    height: 1600,
    format: 'jpg',
    background: 'white',
  },
  {
    id: 'walmart_main_image',
    name: 'Walmart main image',
    channel: 'walmart',
    description: 'Seamless white background, 2200 px square, product centred.',
    operation: ProductPhotoOperation.MarketplaceClean,
    width: 2200,
    height: 2200,
    format: 'jpg',
    background: 'white',
  },
  {
    id: 'etsy_listing_image',
    name: 'Etsy listing image',
    channel: 'etsy',
    description: 'Studio packshot at 2700 x 2025 (4:3), the listing size Etsy recommends.',
    operation: ProductPhotoOperation.StudioPackshot,
    width: 2700,
    height: 2025,
    format: 'jpg',
    background: 'white',
  },
  {
    id: 'google_shopping_image',
    name: 'Google Shopping product image',
    channel: 'google_merchant_center',
    description: 'Plain white background without overlays or watermarks, 1500 px square.',
    operation: ProductPhotoOperation.MarketplaceClean,
    width: 1500,
    height: 1500,
    format: 'jpg',
    background: 'white',
  },
  {
    id: 'shop_square_image',
    name: 'Square shop image',
    channel: 'web_shop',
    description: 'Enhanced, evenly lit product on white, 2048 px square, for Shopify, WooCommerce and similar themes.',
    operation: ProductPhotoOperation.ProductPhotoEnhance,
    width: 2048,
    height: 2048,
    format: 'webp',
    background: 'white',
  },
  {
    id: 'transparent_cutout',
    name: 'Transparent cut-out',
    channel: 'any',
    description: 'The product alone on a transparent background at its source size, for compositing.',
    operation: ProductPhotoOperation.RemoveBackground,
    width: null,
    height: null,
    format: 'png',
    background: 'transparent',
  },
  {
    id: 'instagram_feed_image',
    name: 'Instagram feed image',
    channel: 'instagram',
    description: 'Portrait 4:5 lifestyle scene at 1080 x 1350, the feed size that takes the most screen.',
    operation: ProductPhotoOperation.NaturalLifestyle,
    width: 1080,
    height: 1350,
    format: 'jpg',
    background: 'generated_scene',
  },
  {
    id: 'instagram_story_ad',
    name: 'Instagram story ad',
    channel: 'instagram',
    description: 'Full-screen 9:16 premium ad visual at 1080 x 1920 with room for overlays.',
    operation: ProductPhotoOperation.PremiumAd,
    width: 1080,
    height: 1920,
    format: 'jpg',
    background: 'generated_scene',
  },
  {
    id: 'facebook_feed_ad',
    name: 'Facebook feed ad',
    channel: 'facebook',
    description: 'Square premium ad visual at 1080 x 1080.',
    operation: ProductPhotoOperation.PremiumAd,
    width: 1080,
    height: 1080,
    format: 'jpg',
    background: 'generated_scene',
  },
  {
    id: 'pinterest_pin_image',
    name: 'Pinterest pin',
    channel: 'pinterest',
    description: 'Vertical 2:3 lifestyle image at 1000 x 1500.',
    operation: ProductPhotoOperation.NaturalLifestyle,
    width: 1000,
    height: 1500,
    format: 'jpg',
    background: 'generated_scene',
  },
];

export function findPreset(id: string): ProductPhotoPreset | undefined {
  return PRODUCT_PHOTO_PRESETS.find((preset) => preset.id === id);
}
