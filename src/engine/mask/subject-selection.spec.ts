import type { ProbabilityMap } from './probability-map';
import { selectSubject } from './subject-selection';

/** Bound once: Jest runs tests in a VM context, where a global lookup per pixel is slow. */
const { exp, hypot, max, min } = Math;

const SIDE = 768;

/** A map drawn by a function of the pixel's centre. */
function drawMap(probability: (x: number, y: number) => number): ProbabilityMap {
  const data = new Float32Array(SIDE * SIDE);
  for (let y = 0; y < SIDE; y++) for (let x = 0; x < SIDE; x++) data[y * SIDE + x] = probability(x, y);
  return { data, width: SIDE, height: SIDE };
}

/** A model-like soft edge: 0.5 on the outline, about 3 px from 0.1 to 0.9. */
const soft = (signedDistanceOutside: number) => 1 / (1 + exp(signedDistanceOutside / 1.5));
const disc = (cx: number, cy: number, r: number) => (x: number, y: number) => soft(hypot(x - cx, y - cy) - r);
/** Signed distance outside an axis-aligned box (negative inside). */
const boxDistance = (left: number, top: number, right: number, bottom: number) => (x: number, y: number) => {
  const dx = max(left - x, x - right);
  const dy = max(top - y, y - bottom);
  return dx > 0 || dy > 0 ? hypot(max(dx, 0), max(dy, 0)) : max(dx, dy);
};
const box = (left: number, top: number, right: number, bottom: number) => {
  const distance = boxDistance(left, top, right, bottom);
  return (x: number, y: number) => soft(distance(x, y));
};

function iou(map: ProbabilityMap, truth: (x: number, y: number) => boolean): number {
  let both = 0;
  let either = 0;
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      const a = map.data[y * SIDE + x] >= 0.5;
      const b = truth(x, y);
      if (a && b) both++;
      if (a || b) either++;
    }
  }
  return both / either;
}

const at = (map: ProbabilityMap, x: number, y: number) => map.data[y * SIDE + x];

describe(selectSubject.name, () => {
  it('keeps the central product and drops a salient corner object and a strip along the border', () => {
    const central = disc(384, 400, 150);
    const corner = disc(130, 130, 100);
    const strip = box(0, 0, SIDE - 1, 14);
    const map = drawMap((x, y) => max(0.9 * central(x, y), 0.99 * corner(x, y), 0.95 * strip(x, y)));

    const selected = selectSubject(map).map;

    expect(iou(selected, (x, y) => hypot(x - 384, y - 400) <= 150)).toBeGreaterThan(0.99);
    expect(at(selected, 130, 130)).toBe(0);
    expect(at(selected, 600, 5)).toBe(0);
    // The kept product's soft edge survives, as the model gave it.
    expect(at(selected, 384 + 152, 400)).toBeCloseTo(at(map, 384 + 152, 400), 6);
  });

  it('keeps a product cut by the frame over a smaller prop in the centre', () => {
    const product = box(250, 300, 520, SIDE + 10);
    const prop = disc(384, 160, 70);
    const selected = selectSubject(drawMap((x, y) => max(product(x, y), prop(x, y)))).map;

    expect(at(selected, 384, 600)).toBeGreaterThan(0.9);
    expect(at(selected, 384, 160)).toBe(0);
  });

  it('keeps both parts of a product split by a thin gap, not a distant speck', () => {
    const body = box(324, 300, 444, 650);
    const cap = box(354, 250, 414, 296);
    const speck = disc(650, 650, 20);
    // The 3 px gap between cap and body stays below the threshold.
    const selected = selectSubject(drawMap((x, y) => max(body(x, y), cap(x, y), speck(x, y)))).map;

    expect(at(selected, 384, 270)).toBeGreaterThan(0.9);
    expect(at(selected, 384, 500)).toBeGreaterThan(0.9);
    expect(at(selected, 384, 298)).toBeLessThan(0.5);
    expect(at(selected, 650, 650)).toBe(0);
    expect(
      iou(
        selected,
        (x, y) => (x >= 324 && x <= 444 && y >= 300 && y <= 650) || (x >= 354 && x <= 414 && y >= 250 && y <= 296),
      ),
    ).toBeGreaterThan(0.99);
  });

  it('keeps a part far from the subject when the model links them with weaker probability, and only then', () => {
    const shade = disc(384, 250, 90);
    const base = box(300, 470, 468, 520);
    // A thin stem the model only half saw, 130 px long: far more than the gap allowed.
    const stem = boxDistance(380, 340, 388, 470);
    const withStem = selectSubject(drawMap((x, y) => max(shade(x, y), base(x, y), stem(x, y) <= 0 ? 0.3 : 0))).map;
    const withoutStem = selectSubject(drawMap((x, y) => max(shade(x, y), base(x, y)))).map;

    expect(at(withStem, 384, 495)).toBeGreaterThan(0.9);
    expect(at(withoutStem, 384, 495)).toBe(0);
    expect(at(withoutStem, 384, 250)).toBeGreaterThan(0.9);
  });

  it('fills a hole the model was unsure about', () => {
    const body = disc(384, 384, 200);
    const doubt = boxDistance(354, 354, 414, 414);
    // The model gave 0.3 inside the square, with its usual soft edge down from the body.
    const map = drawMap((x, y) => {
      const inHole = soft(doubt(x, y));
      return body(x, y) * (1 - inHole) + 0.3 * inHole;
    });
    expect(at(map, 384, 384)).toBeLessThan(0.5);

    const selected = selectSubject(map).map;

    for (const [x, y] of [
      [384, 384],
      [358, 358],
      [410, 384],
    ])
      expect(at(selected, x, y)).toBe(1);
    expect(iou(selected, (x, y) => hypot(x - 384, y - 384) <= 200)).toBeGreaterThan(0.995);
  });

  it('keeps real openings: a ring, and a handle beside a mug', () => {
    const ring = (x: number, y: number) => min(disc(384, 384, 200)(x, y), 1 - disc(384, 384, 60)(x, y));
    const mug = box(250, 200, 420, 560);
    // The handle: a box outside the mug with a 24 x 60 px opening, held on by the mug's side.
    const handleOuter = box(420, 300, 480, 420);
    const handleOpening = box(421, 330, 444, 389);
    const mugWithHandle = (x: number, y: number) => max(mug(x, y), min(handleOuter(x, y), 1 - handleOpening(x, y)));

    const selectedRing = selectSubject(drawMap(ring)).map;
    const selectedMug = selectSubject(drawMap(mugWithHandle)).map;

    expect(at(selectedRing, 384, 384)).toBeLessThan(0.01);
    expect(iou(selectedRing, (x, y) => hypot(x - 384, y - 384) <= 200 && hypot(x - 384, y - 384) > 60)).toBeGreaterThan(
      0.99,
    );
    expect(at(selectedMug, 433, 360)).toBeLessThan(0.05);
    expect(at(selectedMug, 470, 360)).toBeGreaterThan(0.9);
  });

  it('returns an empty map when nothing reaches the threshold', () => {
    const selected = selectSubject(drawMap(() => 0.3)).map;
    expect(selected.data.every((p) => p === 0)).toBe(true);
  });

  describe('its uncertainty', () => {
    const BACKDROP = [232, 232, 228];
    /** The photo at the map's size: `colour` of the pixel where it gives one, the backdrop elsewhere. */
    const drawPhoto = (colour: (x: number, y: number) => number[] | null) => {
      const photo = Buffer.alloc(SIDE * SIDE * 3);
      for (let y = 0; y < SIDE; y++)
        for (let x = 0; x < SIDE; x++) photo.set(colour(x, y) ?? BACKDROP, (y * SIDE + x) * 3);
      return photo;
    };
    const inDisc = (x: number, y: number) => hypot(x - 384, y - 384) <= 150;
    const orange = drawPhoto((x, y) => (inDisc(x, y) ? [220, 120, 40] : null));

    it('is low for one clean object the model is sure of', () => {
      // As the model draws a clean product's outline: from 0.2 to 0.8 within about a pixel.
      const sure = (x: number, y: number) => 1 / (1 + exp((hypot(x - 384, y - 384) - 150) / 0.3));
      expect(selectSubject(drawMap(sure), orange).uncertainty).toBeLessThan(0.1);
    });

    it('is high where the model hesitates along the whole outline', () => {
      // Probability falls from 0.9 to 0.1 over about 60 px instead of 6.
      const hesitant = (x: number, y: number) => 1 / (1 + exp((hypot(x - 384, y - 384) - 150) / 15));
      expect(selectSubject(drawMap(hesitant), orange).uncertainty).toBeGreaterThan(0.5);
    });

    it('is as high as it gets when the backdrop shows through what the model filled, as in a lens', () => {
      const lens = drawPhoto((x, y) => {
        const r = hypot(x - 384, y - 384);
        return r > 150 ? null : r > 135 ? [25, 25, 30] : [233, 231, 229];
      });
      const sure = selectSubject(drawMap(disc(384, 384, 150)), lens).uncertainty;
      expect(sure).toBe(1);
    });

    it('grows when a hole the model called background is filled', () => {
      const body = disc(384, 384, 200);
      const doubt = boxDistance(324, 324, 444, 444);
      const holed = drawMap((x, y) => {
        const inHole = soft(doubt(x, y));
        return body(x, y) * (1 - inHole) + 0.3 * inHole;
      });
      const clean = selectSubject(drawMap(body)).uncertainty;
      const filled = selectSubject(holed);
      expect(at(filled.map, 384, 384)).toBe(1);
      expect(filled.uncertainty).toBeGreaterThan(clean + 0.2);
    });

    it('is 1 when nothing reaches the threshold', () => {
      expect(selectSubject(drawMap(() => 0.3)).uncertainty).toBe(1);
    });
  });
});
