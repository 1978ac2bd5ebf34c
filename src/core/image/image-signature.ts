/**
 * The formats a source may be in, told from their first bytes, so that anything else (an SVG, a
 * PDF, a document in any format libvips could be asked to open) is refused before a decoder of
 * libvips parses a byte of it: an SVG would otherwise be read whole by librsvg just to learn its
 * size. Names are sharp's; AVIF and HEIC are both `heif`, the ISO media file whose `ftyp` box comes
 * first (libheif then decides whether it holds a still image it reads).
 */
export type SignedFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff' | 'heif';

const startsWith = (bytes: Uint8Array, at: number, expected: readonly number[]) =>
  bytes.length >= at + expected.length && expected.every((byte, index) => bytes[at + index] === byte);

const ascii = (text: string) => Array.from(text, (char) => char.charCodeAt(0));

const SIGNATURES: ReadonlyArray<{ format: SignedFormat; matches: (bytes: Uint8Array) => boolean }> = [
  { format: 'jpeg', matches: (bytes) => startsWith(bytes, 0, [0xff, 0xd8, 0xff]) },
  { format: 'png', matches: (bytes) => startsWith(bytes, 0, [0x89, ...ascii('PNG\r\n\x1a\n')]) },
  { format: 'gif', matches: (bytes) => startsWith(bytes, 0, ascii('GIF87a')) || startsWith(bytes, 0, ascii('GIF89a')) },
  { format: 'webp', matches: (bytes) => startsWith(bytes, 0, ascii('RIFF')) && startsWith(bytes, 8, ascii('WEBP')) },
  // Classic TIFF (42) and BigTIFF (43), in either byte order.
  {
    format: 'tiff',
    matches: (bytes) =>
      [ascii('II*\0'), ascii('MM\0*'), ascii('II+\0'), ascii('MM\0+')].some((s) => startsWith(bytes, 0, s)),
  },
  { format: 'heif', matches: (bytes) => startsWith(bytes, 4, ascii('ftyp')) },
];

/** The format `bytes` start like, or null when they start like none a source may be in. */
export function signedFormat(bytes: Uint8Array): SignedFormat | null {
  return SIGNATURES.find(({ matches }) => matches(bytes))?.format ?? null;
}
