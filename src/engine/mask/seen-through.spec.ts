import { seenThroughShare } from './seen-through';

const SIDE = 120;
const BACKDROP = [235, 235, 230];

/** A subject disc of radius 40 at the centre, painted by `colour` of the distance from it; backdrop elsewhere. */
function scene(colour: (radius: number) => number[]): { subject: Uint8Array; photo: Buffer } {
  const subject = new Uint8Array(SIDE * SIDE);
  const photo = Buffer.alloc(SIDE * SIDE * 3);
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      const i = y * SIDE + x;
      const radius = Math.hypot(x + 0.5 - SIDE / 2, y + 0.5 - SIDE / 2);
      subject[i] = radius <= 40 ? 1 : 0;
      photo.set(radius <= 40 ? colour(radius) : BACKDROP, i * 3);
    }
  }
  return { subject, photo };
}

describe(seenThroughShare.name, () => {
  it('finds the backdrop inside a dark frame the subject was filled across, as in a lens', () => {
    const { subject, photo } = scene((radius) => (radius > 32 ? [30, 30, 35] : [237, 233, 231]));
    // All of the lens: what is not is the frame's own inner part, deeper than the outline band.
    expect(seenThroughShare(subject, photo, SIDE, SIDE)).toBeGreaterThan(0.7);
  });

  it('finds none in a solid product, nor in a white product on a white backdrop', () => {
    const solid = scene(() => [200, 60, 40]);
    const white = scene(() => [238, 236, 232]);
    expect(seenThroughShare(solid.subject, solid.photo, SIDE, SIDE)).toBe(0);
    expect(seenThroughShare(white.subject, white.photo, SIDE, SIDE)).toBe(0);
  });

  it('finds none in a framed product whose inside is its own colour', () => {
    const { subject, photo } = scene((radius) => (radius > 32 ? [30, 30, 35] : [60, 120, 200]));
    expect(seenThroughShare(subject, photo, SIDE, SIDE)).toBe(0);
  });
});
