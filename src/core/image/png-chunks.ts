import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { inflate, type ZlibOptions } from 'node:zlib';
import { METADATA_READ_LIMITS } from './metadata/metadata-limits';

const inflated = promisify<Buffer, ZlibOptions, Buffer>(inflate);

/** Chunk types by their four bytes read as one big-endian number, so the walk makes no strings. */
const TYPE = {
  tEXt: 0x74455874,
  zTXt: 0x7a545874,
  iTXt: 0x69545874,
  iCCP: 0x69434350,
  IEND: 0x49454e44,
} as const;

const SIGNATURE_BYTES = 8;
/** A chunk's length, type and CRC around its data. */
const FRAME_BYTES = 12;
const XMP_KEYWORD = 'XML:com.adobe.xmp';
/** Chunks walked between two turns of the event loop: a file of millions of empty chunks shares it. */
const CHUNKS_PER_TURN = 65_536;

/** A PNG as every later read sees it, and what was taken out of it that a result could have kept. */
export interface BoundedPng {
  bytes: Buffer;
  /** Why the XMP packet was taken out (inflating past METADATA_READ_LIMITS.xmpBytes, or damaged); else null. */
  xmpLeftOut: string | null;
  /** Why the ICC profile was taken out (inflating past METADATA_READ_LIMITS.iccBytes, or damaged); else null. */
  profileLeftOut: string | null;
}

type Verdict = { keep: true } | { keep: false; reason: string | null };
const KEEP: Verdict = { keep: true };
const REMOVE: Verdict = { keep: false, reason: null };

/**
 * A PNG with its text chunks bounded before libvips reads it. libspng inflates a compressed text
 * or profile chunk whole at every header read, up to its own limit of about 50 MB, at about 50 ms
 * per inflated megabyte: a 50 KB zTXt chunk costs each read two seconds of a libuv thread, and a
 * result reads its source's header several times. The service reads no text chunk but the XMP
 * packet, so every other tEXt, zTXt and iTXt chunk is taken out; the XMP packet (the first text
 * chunk whose keyword is `XML:com.adobe.xmp`) and the profile (iCCP) are inflated here once, into
 * at most their read limits (METADATA_READ_LIMITS), and taken out when they would be larger or do
 * not inflate.
 * Written by hand: no PNG library reads chunks without inflating them or decoding the pixels.
 * The walk is linear in the file and leaves every other chunk, and anything after IEND or a
 * chunk that runs past the end, as it was (libvips judges those).
 */
export async function withBoundedPngChunks(png: Buffer): Promise<BoundedPng> {
  const out = Buffer.allocUnsafe(png.length);
  let written = 0;
  let keptFrom = 0;
  let xmpLeftOut: string | null = null;
  let profileLeftOut: string | null = null;
  let xmpSeen = false;
  let profileSeen = false;
  let at = SIGNATURE_BYTES;
  for (let walked = 1; at + FRAME_BYTES <= png.length; walked++) {
    if (walked % CHUNKS_PER_TURN === 0) await nextTurn();
    const end = at + FRAME_BYTES + png.readUInt32BE(at);
    const type = png.readUInt32BE(at + 4);
    if (end > png.length || type === TYPE.IEND) break;
    const data = png.subarray(at + 8, end - 4);
    let verdict = KEEP;
    if (type === TYPE.tEXt || type === TYPE.zTXt || type === TYPE.iTXt) {
      const xmp = isXmp(data);
      verdict = !xmp || xmpSeen ? REMOVE : await xmpVerdict(type, data);
      xmpSeen ||= xmp;
      if (!verdict.keep) xmpLeftOut ??= verdict.reason;
    }
    if (type === TYPE.iCCP) {
      verdict = profileSeen ? REMOVE : await profileVerdict(data);
      profileSeen = true;
      if (!verdict.keep) profileLeftOut ??= verdict.reason;
    }
    if (!verdict.keep) {
      written += png.copy(out, written, keptFrom, at);
      keptFrom = end;
    }
    at = end;
  }
  if (keptFrom === 0) return { bytes: png, xmpLeftOut, profileLeftOut };
  written += png.copy(out, written, keptFrom);
  return { bytes: out.subarray(0, written), xmpLeftOut, profileLeftOut };
}

/** A text chunk whose keyword is XMP's: libvips writes the packet as zTXt, Adobe's tools as iTXt. */
function isXmp(text: Buffer): boolean {
  return text.length > XMP_KEYWORD.length && text.toString('latin1', 0, XMP_KEYWORD.length + 1) === `${XMP_KEYWORD}\0`;
}

/**
 * After the keyword and its NUL: tEXt holds the text itself; zTXt a compression method, then the
 * deflated text; iTXt a compression flag, a method, a language tag, NUL, a translated keyword,
 * NUL, then the text, deflated when the flag is 1.
 */
async function xmpVerdict(type: number, text: Buffer): Promise<Verdict> {
  const afterKeyword = XMP_KEYWORD.length + 1;
  if (type === TYPE.tEXt) return KEEP;
  if (type === TYPE.zTXt)
    return inflatedVerdict(text.subarray(afterKeyword + 1), METADATA_READ_LIMITS.xmpBytes, 'the XMP block');
  if (text[afterKeyword] !== 1) return KEEP;
  const language = text.indexOf(0, afterKeyword + 2);
  const translated = language < 0 ? -1 : text.indexOf(0, language + 1);
  if (translated < 0) return { keep: false, reason: 'the XMP chunk is damaged' };
  return inflatedVerdict(text.subarray(translated + 1), METADATA_READ_LIMITS.xmpBytes, 'the XMP block');
}

/** iCCP: profile name (1 to 79 bytes), NUL, compression method, the deflated profile. */
async function profileVerdict(iccp: Buffer): Promise<Verdict> {
  const name = iccp.indexOf(0);
  if (name < 1 || name > 79) return { keep: false, reason: 'the ICC profile chunk is damaged' };
  return inflatedVerdict(iccp.subarray(name + 2), METADATA_READ_LIMITS.iccBytes, 'the ICC profile');
}

/** Inflates `deflated` into at most `limit` bytes (zlib stops there), on libuv's threads. */
async function inflatedVerdict(deflated: Buffer, limit: number, block: string): Promise<Verdict> {
  try {
    await inflated(deflated, { maxOutputLength: limit });
    return KEEP;
  } catch (error) {
    const over = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    return {
      keep: false,
      reason: over
        ? `${block} inflates past the ${Math.round(limit / 1024)} KiB the service reads`
        : `${block} does not inflate (its compressed data is damaged)`,
    };
  }
}
