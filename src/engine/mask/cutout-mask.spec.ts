import type { ProbabilityMap } from './probability-map';
import { fromRaw, type RawImage } from '../raw-image';
import { maskFromProbability } from './cutout-mask';

/** Bound once: Jest runs tests in a VM context, where a global lookup per pixel is slow. */
const { exp, hypot, max } = Math;

const WIDTH = 1000;
const HEIGHT = 750;
const MAP_SIDE = 768;
/** The product, and a salient vase near the top-left corner, in photo pixels. */
const PRODUCT = { cx: 520, cy: 400, r: 220 };
const VASE = { cx: 130, cy: 120, r: 90 };

const inside = (disc: { cx: number; cy: number; r: number }, x: number, y: number) =>
  hypot(x + 0.5 - disc.cx, y + 0.5 - disc.cy) <= disc.r;

/** Orange product and blue vase on a light grey backdrop. */
function photo(): RawImage {
  const data = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const colour = inside(PRODUCT, x, y) ? [230, 130, 30] : inside(VASE, x, y) ? [40, 60, 200] : [225, 225, 220];
      data.set(colour, (y * WIDTH + x) * 3);
    }
  }
  return { data, width: WIDTH, height: HEIGHT, channels: 3 };
}

/** What the model gives: both objects found, soft edges, the photo squashed to 768 x 768. */
function modelMap(): ProbabilityMap {
  const data = new Float32Array(MAP_SIDE * MAP_SIDE);
  const soft = (d: number) => 1 / (1 + exp(d / 2));
  for (let v = 0; v < MAP_SIDE; v++) {
    for (let u = 0; u < MAP_SIDE; u++) {
      const x = ((u + 0.5) * WIDTH) / MAP_SIDE;
      const y = ((v + 0.5) * HEIGHT) / MAP_SIDE;
      const product = soft((hypot(x - PRODUCT.cx, y - PRODUCT.cy) - PRODUCT.r) * (MAP_SIDE / WIDTH));
      const vase = soft((hypot(x - VASE.cx, y - VASE.cy) - VASE.r) * (MAP_SIDE / WIDTH));
      data[v * MAP_SIDE + u] = max(0.95 * product, 0.98 * vase);
    }
  }
  return { data, width: MAP_SIDE, height: MAP_SIDE };
}

describe(maskFromProbability.name, () => {
  it('cuts out the central product alone, at the photo’s size, with settled alpha away from its edge', async () => {
    const map = modelMap();
    const mapPhoto = await fromRaw(photo()).resize(map.width, map.height, { fit: 'fill' }).raw().toBuffer();
    const { mask } = await maskFromProbability(map, mapPhoto, photo());

    expect(mask.width).toBe(WIDTH);
    expect(mask.height).toBe(HEIGHT);
    let both = 0;
    let either = 0;
    let vaseKept = 0;
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const kept = mask.data[y * WIDTH + x] >= 128;
        const truth = inside(PRODUCT, x, y);
        if (kept && truth) both++;
        if (kept || truth) either++;
        if (inside(VASE, x, y) && mask.data[y * WIDTH + x] !== 0) vaseKept++;
      }
    }
    expect(both / either).toBeGreaterThan(0.995);
    expect(vaseKept).toBe(0);
    expect(mask.data[0]).toBe(0);
    expect(mask.data[PRODUCT.cy * WIDTH + PRODUCT.cx]).toBe(255);
  });
});
