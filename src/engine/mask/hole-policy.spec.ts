import { distanceFromSeeds } from './distance-transform';
import { settleHoles } from './hole-policy';

const SIDE = 256;
type Rgb = [number, number, number];

/**
 * A square product (a frame 40 px wide around a 96 px opening) on a light backdrop: the model's
 * probability is 1 on the frame and `openingProbability` inside the opening, which shows
 * `openingColour`.
 */
function framedOpening(openingProbability: number, openingColour: Rgb, backdrop: Rgb = [236, 234, 230]) {
  const n = SIDE * SIDE;
  const probability = new Float32Array(n);
  const subject = new Uint8Array(n);
  const photo = Buffer.alloc(n * 3);
  const frame = (x: number, y: number) => x >= 40 && x < 216 && y >= 40 && y < 216;
  const opening = (x: number, y: number) => x >= 80 && x < 176 && y >= 80 && y < 176;
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      const i = y * SIDE + x;
      const colour: Rgb = opening(x, y) ? openingColour : frame(x, y) ? [40, 110, 60] : backdrop;
      photo.set(colour, i * 3);
      const onFrame = frame(x, y) && !opening(x, y);
      probability[i] = onFrame ? 1 : opening(x, y) ? openingProbability : 0;
      subject[i] = onFrame ? 1 : 0;
    }
  }
  const out = Float32Array.from(probability);
  const distance = distanceFromSeeds(subject, SIDE, SIDE);
  return { out, probability, subject, distance, photo, width: SIDE, height: SIDE };
}

const centre = SIDE * 128 + 128;

describe(settleHoles.name, () => {
  it(
    'leaves an opening open where the model is sure and ' + 'the backdrop shows through (a handle, a ring’s centre)',
    () => {
      const inputs = framedOpening(0.02, [236, 234, 230]);
      settleHoles(inputs);
      expect(inputs.out[centre]).toBeCloseTo(0.02);
    },
  );

  it('fills an enclosed part the model doubted, whatever its colour', () => {
    const inputs = framedOpening(0.4, [236, 234, 230]);
    settleHoles(inputs);
    expect(inputs.out[centre]).toBe(1);
  });

  it(
    'fills a light part of an opaque product the model took ' + 'for background, when its colour is not the backdrop’s',
    () => {
      // A silver shield on a board: grey, where the backdrop is warm off-white.
      const inputs = framedOpening(0.02, [178, 182, 188]);
      settleHoles(inputs);
      expect(inputs.out[centre]).toBe(1);
    },
  );

  it('fills an opening whose texture the smooth backdrop does not have (print, ports, pads)', () => {
    const inputs = framedOpening(0.02, [236, 234, 230]);
    for (let y = 80; y < 176; y++)
      for (let x = 80; x < 176; x++)
        if ((x >> 3) % 2 === (y >> 3) % 2) inputs.photo.set([120, 120, 120], (y * SIDE + x) * 3);
    settleHoles(inputs);
    expect(inputs.out[centre]).toBe(1);
  });

  it('keeps to the map alone without a photo: only the model’s doubt fills', () => {
    const sure = { ...framedOpening(0.02, [178, 182, 188]), photo: null };
    settleHoles(sure);
    expect(sure.out[centre]).toBeCloseTo(0.02);
  });
});
