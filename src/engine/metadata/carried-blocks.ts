import { carriedExifFields, type ExifFields } from './exif-fields';
import { scrubbedXmp } from './xmp-scrub';

/** The metadata blocks of a source's header that a result may carry, as libvips read them. */
export interface SourceMetadataBlocks {
  exif: Uint8Array | null;
  xmp: Uint8Array | null;
}

/** What a result carries of those blocks, and why a block present in the source is not carried. */
export interface CarriedBlocks {
  /** The carried EXIF fields; null when the source has none of them. */
  exif: ExifFields | null;
  /** The source's XMP packet, scrubbed (see xmp-scrub.ts); null when it has none. */
  xmp: string | null;
  /** One line for each block left out because it could not be read within its bounds. */
  dropped: string[];
}

/**
 * The EXIF fields and the scrubbed XMP packet of a source, each read by a parser whose time is
 * linear in the block's size: an engine operation, so that a hostile block costs a thread of the
 * pool and never the worker's event loop. A block that cannot be read is left out, with the reason.
 */
export function carriedBlocks({ exif, xmp }: SourceMetadataBlocks): CarriedBlocks {
  const dropped: string[] = [];
  const exifReading = exif ? carriedExifFields(exif) : { fields: null };
  if ('dropped' in exifReading) dropped.push(exifReading.dropped);
  const xmpScrub = xmp ? scrubbedXmp(Buffer.from(xmp.buffer, xmp.byteOffset, xmp.byteLength).toString('utf8')) : null;
  if (xmpScrub && 'dropped' in xmpScrub) dropped.push(xmpScrub.dropped);
  return {
    exif: 'fields' in exifReading ? exifReading.fields : null,
    xmp: xmpScrub && 'xmp' in xmpScrub && xmpScrub.xmp ? xmpScrub.xmp : null,
    dropped,
  };
}
