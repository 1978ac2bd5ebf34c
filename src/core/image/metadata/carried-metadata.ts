import sharp from 'sharp';
import type { ExifFields } from '../../../engine/metadata/exif-fields';
import type { PixelEngine } from '../../../engine/pixel-engine';
import type { OutputFormat } from '../output-format';
import type { SourceImage } from '../source-image';
import { METADATA_READ_LIMITS, metadataWriteLimits } from './metadata-limits';

/** What a result's file carries over from its source when the client keeps metadata. */
export interface CarriedMetadata {
  /** The carried EXIF fields; null when the source has none of them. */
  exif: ExifFields | null;
  /** The source's XMP packet, scrubbed (engine/metadata/xmp-scrub.ts); null when it has none. */
  xmp: string | null;
  /** The source's resolution in pixels per inch, when its header states one. */
  density: number | null;
}

/** What a result keeps of its source's metadata, and one line for each block it leaves out. */
export interface MetadataReading {
  /** Null when nothing is kept: no EXIF fields and no XMP. */
  carried: CarriedMetadata | null;
  dropped: string[];
}

const kibibytes = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

/** `block` when it is within `limit` bytes; otherwise null, and why in `dropped`. */
function withinLimit(block: Buffer | undefined, limit: number, name: string, dropped: string[]): Buffer | null {
  if (!block) return null;
  if (block.length <= limit) return block;
  dropped.push(`the ${name} block is ${kibibytes(block.length)}, over the ${kibibytes(limit)} the service reads`);
  return null;
}

const textBytes = (fields: ExifFields) =>
  [...Object.values(fields.IFD0), ...Object.values(fields.IFD2)].reduce(
    (sum, value) => sum + Buffer.byteLength(value),
    0,
  );

/**
 * What a result written as `format` keeps of its source's metadata (`output.metadata` `keep`): its
 * EXIF fields, its XMP packet and its resolution. libvips reads the header (no pixel is decoded)
 * on its own threads; the blocks within METADATA_READ_LIMITS are then parsed by the engine, in its
 * threads, so that no block of any size or shape costs the worker's event loop. IPTC is not
 * carried: its rights and credits are repeated in XMP by every tool that writes both.
 */
export async function readCarriedMetadata(
  source: SourceImage,
  format: OutputFormat,
  engine: PixelEngine,
): Promise<MetadataReading> {
  const { exif, xmp, density } = await sharp(source.bytes).metadata();
  // A packet taken out before any read (see png-chunks.ts) is left out all the same.
  const dropped: string[] = source.xmpLeftOut ? [source.xmpLeftOut] : [];
  const blocks = {
    exif: withinLimit(exif, METADATA_READ_LIMITS.exifBytes, 'EXIF', dropped),
    xmp: withinLimit(xmp, METADATA_READ_LIMITS.xmpBytes, 'XMP', dropped),
  };
  const read = blocks.exif || blocks.xmp ? await engine.run('carriedBlocks', [blocks]) : null;
  dropped.push(...(read?.dropped ?? []));

  const limits = metadataWriteLimits(format);
  let fields = read?.exif ?? null;
  if (fields && textBytes(fields) > limits.exifTextBytes) {
    dropped.push(`the EXIF fields hold ${kibibytes(textBytes(fields))} of text, more than a ${format} file takes`);
    fields = null;
  }
  let packet = read?.xmp ?? null;
  if (packet && Buffer.byteLength(packet) > limits.xmpBytes) {
    dropped.push(`the XMP packet is ${kibibytes(Buffer.byteLength(packet))}, more than a ${format} file takes`);
    packet = null;
  }
  const carried = fields || packet ? { exif: fields, xmp: packet, density: density ?? null } : null;
  return { carried, dropped };
}
