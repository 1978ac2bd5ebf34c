import { basename, extname } from 'node:path';

/** The file extension each output format is written with. */
export const EXTENSION_OF_FORMAT = { jpg: 'jpg', png: 'png', webp: 'webp', avif: 'avif' } as const;
export type OutputFormat = keyof typeof EXTENSION_OF_FORMAT;

/** A source's name without folder and extension: `photos/shoe.jpg` -> `shoe`. */
export function stemOf(path: string): string {
  const name = basename(path);
  const extension = extname(name);
  return extension && extension !== name ? name.slice(0, -extension.length) : name;
}

/**
 * One output stem per source path, unique in the output folder: the source's own stem, and for
 * sources that share one (`a/shoe.jpg`, `b/shoe.png`) the first in path order keeps it and the
 * others take `-2`, `-3`... in that order. Paths are compared sorted, so the same set of paths
 * always gets the same names, whatever order the shell listed them in. Stems compare without
 * case, since macOS and Windows folders do.
 */
export function assignStems(paths: readonly string[]): Map<string, string> {
  const sorted = [...new Set(paths)].sort();
  const taken = new Set<string>();
  const stems = new Map<string, string>();
  // Sources whose own stem is free keep it, even when another source's numbered name would land on it.
  for (const path of sorted) {
    const stem = stemOf(path);
    if (!taken.has(stem.toLowerCase())) {
      taken.add(stem.toLowerCase());
      stems.set(path, stem);
    }
  }
  for (const path of sorted) {
    if (stems.has(path)) continue;
    const stem = stemOf(path);
    let suffix = 2;
    while (taken.has(`${stem}-${suffix}`.toLowerCase())) suffix += 1;
    taken.add(`${stem}-${suffix}`.toLowerCase());
    stems.set(path, `${stem}-${suffix}`);
  }
  return stems;
}

/** The file a result is written to, relative to the output folder. */
export const outputName = (stem: string, format: OutputFormat): string => `${stem}.${EXTENSION_OF_FORMAT[format]}`;
