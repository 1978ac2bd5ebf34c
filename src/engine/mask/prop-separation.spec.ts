import { expectedCentre } from './hinted-mask';
import { separateProps } from './prop-separation';
import { NO_HINTS } from './subject-hints';

const SIDE = 384;
const { hypot } = Math;

type Rgb = [number, number, number];

/** A photo at the map's size painted by a function of the pixel, and the subject mask of what is not backdrop. */
function scene(paint: (x: number, y: number) => Rgb | null, backdrop: Rgb = [222, 220, 216]) {
  const photo = Buffer.alloc(SIDE * SIDE * 3);
  const subject = new Uint8Array(SIDE * SIDE);
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      const i = y * SIDE + x;
      const colour = paint(x, y);
      photo.set(colour ?? backdrop, i * 3);
      subject[i] = colour ? 1 : 0;
    }
  }
  return { photo, subject };
}

/** A red cylinder-like product: shaded across its width, with a cream label band round it. */
function product(x: number, y: number): Rgb | null {
  if (x < 130 || x > 250 || y < 80 || y > 320) return null;
  const shade = 0.75 + 0.25 * Math.sin(((x - 130) / 120) * Math.PI);
  if (y > 180 && y < 240) return [Math.round(236 * shade), Math.round(226 * shade), Math.round(200 * shade)];
  return [Math.round(200 * shade), Math.round(40 * shade), Math.round(44 * shade)];
}

const frame = (keepPoints: number[]) => ({
  width: SIDE,
  height: SIDE,
  centre: expectedCentre(NO_HINTS, SIDE, SIDE),
  keepPoints,
  crossing: null,
});

const inDisc = (x: number, y: number, cx: number, cy: number, r: number) => hypot(x - cx, y - cy) <= r;

function shares(removed: Uint8Array, region: (x: number, y: number) => boolean) {
  let inside = 0;
  let taken = 0;
  let outside = 0;
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      if (region(x, y)) {
        inside++;
        taken += removed[y * SIDE + x];
      } else outside += removed[y * SIDE + x];
    }
  }
  return { taken: taken / inside, elsewhere: outside };
}

describe(separateProps.name, () => {
  it('removes a disc of another colour fused to the product’s side, and nothing of the product', () => {
    // The disc sits behind the product: where both are, the product shows.
    const prop = (x: number, y: number) => inDisc(x, y, 300, 150, 60) && !product(x, y);
    const { photo, subject } = scene((x, y) => product(x, y) ?? (prop(x, y) ? [40, 90, 210] : null));
    const separation = separateProps(subject, photo, frame([]));
    const { taken, elsewhere } = shares(separation.removed, prop);
    expect(taken).toBeGreaterThan(0.9);
    // Less than 1% of the product's 120 x 240 pixels.
    expect(elsewhere).toBeLessThan(288);
    expect(separation.removedShare).toBeGreaterThan(0.15);
  });

  it('keeps a part of the product’s own colour, however it hangs on it (a handle, a cap)', () => {
    const handle = (x: number, y: number) => x > 250 && hypot(x - 250, y - 200) <= 55 && hypot(x - 250, y - 200) >= 30;
    const { photo, subject } = scene((x, y) => product(x, y) ?? (handle(x, y) ? [190, 38, 42] : null));
    const separation = separateProps(subject, photo, frame([]));
    expect(separation.removedShare).toBe(0);
  });

  it('keeps what is under a keep point, even a shape it would otherwise take for a prop', () => {
    const prop = (x: number, y: number) => inDisc(x, y, 300, 150, 60) && !product(x, y);
    const { photo, subject } = scene((x, y) => product(x, y) ?? (prop(x, y) ? [40, 90, 210] : null));
    const onDisc = 150 * SIDE + 320;
    const separation = separateProps(subject, photo, frame([onDisc]));
    expect(separation.removed[onDisc]).toBe(0);
    expect(separation.removed[150 * SIDE + 190]).toBe(0);
  });

  it('removes nothing from a product of one colour with no props', () => {
    const { photo, subject } = scene((x, y) => product(x, y));
    expect(separateProps(subject, photo, frame([])).removedShare).toBe(0);
  });
});
