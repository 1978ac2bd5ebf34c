import { OUTPUT_FORMATS } from '../../core/image/output-format';
import { DEFAULT_QUALITY } from '../../core/image/pipeline-steps';

/** png (lossless, with transparency) unless the request says otherwise. */
export const DEFAULT_FORMAT = 'png';

/** The formats `output.quality` applies to: png is lossless, so a quality there would mean nothing. */
export const QUALITY_FORMATS = ['jpg', 'webp', 'avif'] as const;

/** The formats `output.lossless` applies to: webp only (png is always lossless; jpg and avif are written lossy). */
export const LOSSLESS_FORMATS = ['webp'] as const;
export const QUALITY_RANGE = { minimum: 1, maximum: 100 } as const;

/**
 * `output.dpi`, in pixels per inch: from 1 to 2400, which covers every print workflow (300 for
 * print, up to 1200 to 2400 for fine art and scanning) without writing absurd values.
 */
export const DPI_RANGE = { minimum: 1, maximum: 2400 } as const;

/** `output.metadata`: `strip` writes nothing of the source; `keep` carries its rights, EXIF and XMP (docs/api.md). */
export const METADATA_CHOICES = ['strip', 'keep'] as const;
export const DEFAULT_METADATA = 'strip';

/** What every tool's `output` accepts besides `number_of_images`, as GET /api/v1/tools lists it. */
export const OUTPUT_OPTIONS = {
  formats: OUTPUT_FORMATS,
  default_format: DEFAULT_FORMAT,
  quality: { formats: QUALITY_FORMATS, ...QUALITY_RANGE, defaults: DEFAULT_QUALITY },
  lossless: { formats: LOSSLESS_FORMATS, default: false },
  dpi: { ...DPI_RANGE, default: null },
  metadata: { values: METADATA_CHOICES, default: DEFAULT_METADATA },
} as const;
