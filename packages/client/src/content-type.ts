import { extname } from 'node:path';

/** Image types by their leading bytes; `null` matches any byte. */
const SIGNATURES: ReadonlyArray<{ type: string; bytes: ReadonlyArray<number | null>; offset?: number }> = [
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  { type: 'image/webp', bytes: [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50] },
  { type: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { type: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { type: 'image/avif', bytes: [0x66, 0x74, 0x79, 0x70, 0x61, 0x76, 0x69, 0x66], offset: 4 },
  { type: 'image/heic', bytes: [0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63], offset: 4 },
];

const BY_EXTENSION: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.avif': 'image/avif',
  '.heic': 'image/heic',
};

/** The image type the bytes start with, or undefined when they match no known image signature. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find(({ bytes: signature, offset = 0 }) =>
    signature.every((byte, i) => byte === null || bytes[offset + i] === byte),
  )?.type;
}

/** The image type a file name's extension names, or undefined. */
export function imageTypeOfFileName(fileName: string): string | undefined {
  return BY_EXTENSION[extname(fileName).toLowerCase()];
}
