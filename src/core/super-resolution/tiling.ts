import type { ModelScale } from './esrgan-model';
import type { TilingOptions } from './tiled-enlargement';

/**
 * Context around each tile, in input pixels. A pixel of the models' output depends on the input
 * within 10 pixels of it: seven 3 x 3 and one 5 x 5 convolution at the input's resolution (9
 * pixels), and one 3 x 3 convolution after the nearest-neighbour upsampling (at most 1 more); 2
 * more are a margin, should a model of the family reach a little further.
 */
export const TILE_OVERLAP = 12;

/**
 * Each tile's own part is this many output pixels a side (384 input pixels for x2, 192 for x4):
 * the models' widest activation is at the output's resolution (48 channels at x4), so bounding the
 * output side bounds a tile's memory (about 200 MB) for both scales, while the overlap adds a
 * quarter at most to the work.
 */
const TILE_OUTPUT_SIDE = 768;

/** How one scale's image is cut into tiles. */
export function tilingFor(scale: ModelScale, signal?: AbortSignal): TilingOptions {
  return { tileSide: TILE_OUTPUT_SIDE / scale, overlap: TILE_OVERLAP, signal };
}
