import type { AlphaMask } from '../mask/alpha-mask';
import type { RawImage } from '../raw-image';
import { composite } from './composite';
import { reframe } from './cutout-layers';
import { planFrame, union } from './framing';
import { drawShadow } from './shadow';

/** A 400 x 300 photo: a 100 x 150 red box standing with its base at row 249, on grey. */
const W = 400;
const H = 300;
const BOX = { left: 150, top: 100, width: 100, height: 150 };
const inBox = (x: number, y: number) =>
  x >= BOX.left && x < BOX.left + BOX.width && y >= BOX.top && y < BOX.top + BOX.height;

function boxMask(): AlphaMask {
  const data = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data[y * W + x] = inBox(x, y) ? 255 : 0;
  return { data, width: W, height: H };
}

function redOnGrey(): RawImage {
  const data = Buffer.alloc(W * H * 3);
  for (let i = 0; i < W * H; i++) {
    const red = inBox(i % W, Math.floor(i / W));
    data.set(red ? [200, 20, 30] : [128, 128, 128], i * 3);
  }
  return { data, width: W, height: H, channels: 3 };
}

const at = (mask: AlphaMask, x: number, y: number) => mask.data[y * mask.width + x];
const pixel = (image: RawImage, x: number, y: number) => [
  ...image.data.subarray((y * image.width + x) * image.channels, (y * image.width + x + 1) * image.channels),
];

describe('planFrame', () => {
  it('crops around the subject with an even margin of its longer side, reaching past the photo if it must', () => {
    expect(planFrame({ width: W, height: H }, BOX, { kind: 'crop', marginPercent: 10 })).toEqual({
      frame: { left: 135, top: 85, width: 130, height: 180 },
      size: { width: 130, height: 180 },
    });
    const edge = planFrame(
      { width: W, height: H },
      { left: 0, top: 0, width: 100, height: 100 },
      { kind: 'crop', marginPercent: 20 },
    );
    expect(edge.frame).toEqual({ left: -20, top: -20, width: 140, height: 140 });
  });

  it('centres the subject on a canvas, filling the asked share along the tighter side', () => {
    const { frame, size } = planFrame({ width: W, height: H }, BOX, {
      kind: 'canvas',
      width: 1000,
      height: 1000,
      fill: 0.85,
    });
    expect(size).toEqual({ width: 1000, height: 1000 });
    // 150 source rows become 850 canvas rows.
    expect((BOX.height / frame.height) * 1000).toBeCloseTo(850, -1);
    expect(frame.left + frame.width / 2).toBeCloseTo(BOX.left + BOX.width / 2, 0);
    expect(frame.top + frame.height / 2).toBeCloseTo(BOX.top + BOX.height / 2, 0);
  });

  it('keeps the whole photo for `source`, or when no subject was found', () => {
    expect(planFrame({ width: W, height: H }, BOX, { kind: 'source' }).frame).toEqual({
      left: 0,
      top: 0,
      width: W,
      height: H,
    });
    expect(planFrame({ width: W, height: H }, null, { kind: 'crop', marginPercent: 5 }).size).toEqual({
      width: W,
      height: H,
    });
    expect(union(BOX, { left: 140, top: 240, width: 150, height: 20 })).toEqual({
      left: 140,
      top: 100,
      width: 150,
      height: 160,
    });
  });
});

describe('drawShadow', () => {
  it('draws nothing for `none` or an empty mask', async () => {
    expect(await drawShadow(boxMask(), { kind: 'none', spread: 1, lean: 0 })).toBeNull();
    expect(
      await drawShadow({ data: new Uint8Array(W * H), width: W, height: H }, { kind: 'soft', spread: 1, lean: 0 }),
    ).toBeNull();
  });

  it('puts a soft contact shadow just under the base, fading out, and none above the subject', async () => {
    const shadow = (await drawShadow(boxMask(), { kind: 'soft', spread: 1, lean: 0.6 })) as AlphaMask;
    expect(at(shadow, 200, 251)).toBeGreaterThan(40);
    expect(at(shadow, 200, 251)).toBeGreaterThan(at(shadow, 200, 256));
    expect(at(shadow, 200, 280)).toBe(0);
    expect(at(shadow, 200, 60)).toBe(0);
    expect(at(shadow, 30, 250)).toBe(0);
  });

  it('casts a natural shadow to the side the light leans it, onto the floor behind the base', async () => {
    const right = (await drawShadow(boxMask(), { kind: 'natural', spread: 1, lean: 0.6 })) as AlphaMask;
    const left = (await drawShadow(boxMask(), { kind: 'natural', spread: 1, lean: -0.6 })) as AlphaMask;
    const sideSum = (mask: AlphaMask, from: number, to: number) => {
      let sum = 0;
      for (let y = 200; y < 250; y++) for (let x = from; x < to; x++) sum += at(mask, x, y);
      return sum;
    };
    expect(sideSum(right, 250, 300)).toBeGreaterThan(5 * sideSum(right, 100, 150));
    expect(sideSum(left, 100, 150)).toBeGreaterThan(5 * sideSum(left, 250, 300));
    expect(at(right, 200, 60)).toBe(0);
  });
});

describe('composite', () => {
  it('puts the subject over a colour with its shadow beneath it, never on it', async () => {
    const alpha = boxMask();
    const shadow = await drawShadow(alpha, { kind: 'soft', spread: 1, lean: 0 });
    const out = composite({ colour: redOnGrey(), alpha, shadow }, { r: 255, g: 255, b: 255, alpha: 1 });
    expect(out.channels).toBe(3);
    expect(pixel(out, 200, 245)).toEqual([200, 20, 30]);
    expect(pixel(out, 5, 5)).toEqual([255, 255, 255]);
    const underBase = pixel(out, 200, 251);
    expect(underBase[0]).toBeLessThan(230);
    expect(underBase[0]).toBe(underBase[2]);
  });

  it(
    'leaves a transparent background exactly transparent, ' + 'the subject opaque, the shadow black and partial',
    async () => {
      const alpha = boxMask();
      const shadow = await drawShadow(alpha, { kind: 'soft', spread: 1, lean: 0 });
      const out = composite({ colour: redOnGrey(), alpha, shadow }, null);
      expect(out.channels).toBe(4);
      expect(pixel(out, 5, 5)[3]).toBe(0);
      expect(pixel(out, 200, 200)).toEqual([200, 20, 30, 255]);
      const underBase = pixel(out, 200, 251);
      expect(underBase.slice(0, 3)).toEqual([0, 0, 0]);
      expect(underBase[3]).toBeGreaterThan(20);
      expect(underBase[3]).toBeLessThan(255);
    },
  );
});

describe('reframe', () => {
  it('cuts and scales every layer alike, and leaves what lies past the photo empty', async () => {
    const alpha = boxMask();
    const framed = await reframe(
      { colour: redOnGrey(), alpha, shadow: null },
      { left: -50, top: 50, width: 400, height: 300 },
      { width: 200, height: 150 },
    );
    expect(framed.colour).toMatchObject({ width: 200, height: 150, channels: 3 });
    expect(framed.alpha.width).toBe(200);
    // The box (150..249, 100..249) lands at (100..149, 25..99) at half scale, 25 columns in from the padding.
    expect(at(framed.alpha, 125, 60)).toBe(255);
    expect(pixel(framed.colour, 125, 60)).toEqual([200, 20, 30]);
    expect(at(framed.alpha, 10, 60)).toBe(0);
    expect(at(framed.alpha, 60, 60)).toBe(0);
  });
});
