import type { OutputFormat } from '../output-format';

/**
 * The largest metadata block of each kind the service reads from a source. A block over its cap is
 * left out of the result (the log says which and why) and the result still completes; the caps
 * and why each holds for real photos are in docs/internals.md ("Metadata on customer files").
 */
export const METADATA_READ_LIMITS = {
  /** A JPEG cannot hold more in its APP1 segment, and no camera writes more elsewhere. */
  exifBytes: 64 * 1024,
  /** An editor's packet, history included, is tens of kilobytes; the scrubber reads 1 MiB in tens of milliseconds. */
  xmpBytes: 1024 * 1024,
  /** The largest printing (CMYK) profiles are about 2 MB; a display or camera profile is a few kilobytes. */
  iccBytes: 4 * 1024 * 1024,
} as const;

/**
 * The largest block libvips writes into a result of each format: into a JPEG it writes no XMP
 * packet over 60,000 bytes and no EXIF block over what one APP1 segment holds (it leaves either
 * out without a word), so a larger one is left out by the service instead, where the log can say
 * so. The other formats hold any block the read limits let through.
 */
export function metadataWriteLimits(format: OutputFormat): { xmpBytes: number; exifTextBytes: number } {
  if (format === 'jpg') return { xmpBytes: 60_000, exifTextBytes: 60_000 };
  return { xmpBytes: METADATA_READ_LIMITS.xmpBytes, exifTextBytes: METADATA_READ_LIMITS.exifBytes };
}
