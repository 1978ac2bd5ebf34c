import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { RawImage } from '../../engine/raw-image';
import { prepareEsrganModel } from './esrgan-model';
import { EsrganSession } from './esrgan-session';
import { TILE_OVERLAP } from './tiling';
import { enlargeTiled, type TileModel } from './tiled-enlargement';

const MODELS_DIR = path.join(os.tmpdir(), 'imgjobs-test-models');

/** Each pixel repeated `scale` times on both axes, planar: a model whose right answer is known. */
function nearestModel(scale: number, calls: Array<{ width: number; height: number; first: number[] }> = []): TileModel {
  return (tile, width, height) => {
    const plane = width * height;
    calls.push({ width, height, first: [tile[0], tile[plane], tile[2 * plane]] });
    const outputWidth = width * scale;
    const output = new Float32Array(plane * scale * scale * 3);
    for (let c = 0; c < 3; c++) {
      for (let y = 0; y < height * scale; y++) {
        for (let x = 0; x < outputWidth; x++) {
          output[c * plane * scale * scale + y * outputWidth + x] =
            tile[c * plane + Math.floor(y / scale) * width + Math.floor(x / scale)];
        }
      }
    }
    return Promise.resolve(output);
  };
}

/** 5 x 3 pixels, each one distinct: red is the column, green the row, blue their sum. */
const TINY: RawImage = {
  data: Buffer.from(Array.from({ length: 15 }, (_, i) => [(i % 5) * 40, Math.floor(i / 5) * 60, i * 10]).flat()),
  width: 5,
  height: 3,
  channels: 3,
};

describe(enlargeTiled.name, () => {
  it('reassembles the tiles into exactly the whole image, each tile cut with its mirrored context', async () => {
    const calls: Array<{ width: number; height: number; first: number[] }> = [];
    const tiled = await enlargeTiled(TINY, 2, nearestModel(2, calls), { tileSide: 2, overlap: 1 });
    expect([tiled.width, tiled.height, tiled.channels]).toEqual([10, 6, 3]);
    for (let y = 0; y < 6; y++) {
      for (let x = 0; x < 10; x++) {
        const from = (Math.floor(y / 2) * 5 + Math.floor(x / 2)) * 3;
        expect([...tiled.data.subarray((y * 10 + x) * 3, (y * 10 + x) * 3 + 3)]).toEqual([
          ...TINY.data.subarray(from, from + 3),
        ]);
      }
    }
    // Tiles of 2 x 2 (narrower at the right and bottom edges), each with 1 pixel of context around.
    expect(calls.map(({ width, height }) => [width, height])).toEqual([
      [4, 4],
      [4, 4],
      [3, 4],
      [4, 3],
      [4, 3],
      [3, 3],
    ]);
    // The first tile's context above and left of the image is the image mirrored: pixel (1, 1).
    expect(calls[0].first).toEqual([40, 60, 60]);
  });

  it('stops between tiles once its signal is aborted', async () => {
    const controller = new AbortController();
    let tiles = 0;
    const model: TileModel = async (tile, width, height) => {
      tiles += 1;
      controller.abort(new Error('out of time'));
      return nearestModel(2)(tile, width, height);
    };
    await expect(enlargeTiled(TINY, 2, model, { tileSide: 2, overlap: 1, signal: controller.signal })).rejects.toThrow(
      'out of time',
    );
    expect(tiles).toBe(1);
  });

  it('with the x2 model, gives in several tiles what one run over the whole image gives, within 1 level', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="90" height="70">
      <rect width="90" height="70" fill="#e8e0d0"/>
      <circle cx="45" cy="35" r="24" fill="#204080" stroke="#101010" stroke-width="2"/>
      <path d="M0,60 L90,10" stroke="#c03020" stroke-width="1.5"/>
      <text x="8" y="20" font-size="11" font-family="sans-serif" fill="#202020">Tile 42</text>
    </svg>`;
    const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const image: RawImage = { data, width: info.width, height: info.height, channels: 3 };
    const session = await EsrganSession.open(await prepareEsrganModel({ modelsDir: MODELS_DIR, scale: 2 }), {
      intraOpThreads: 1,
    });
    try {
      const model: TileModel = (tile, width, height) => session.enlarge(tile, width, height);
      // 32-pixel tiles: 3 x 3 of them over 90 x 70, so seams cross the circle, the line and the text.
      const tiled = await enlargeTiled(image, 2, model, { tileSide: 32, overlap: TILE_OVERLAP });
      const whole = await enlargeTiled(image, 2, model, { tileSide: 1000, overlap: TILE_OVERLAP });
      let largest = 0;
      for (let i = 0; i < whole.data.length; i++) largest = Math.max(largest, Math.abs(tiled.data[i] - whole.data[i]));
      console.log(`9 tiles against one run: largest difference ${largest} level(s)`);
      expect([tiled.width, tiled.height]).toEqual([180, 140]);
      expect(largest).toBeLessThanOrEqual(1);
    } finally {
      await session.release();
    }
  });
});
