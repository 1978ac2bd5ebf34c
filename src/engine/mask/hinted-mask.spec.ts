import { maskWithHints, regionPixels, softShare } from './hinted-mask';

const WIDTH = 200;
const HEIGHT = 100;

/** Two solid squares: one on the left half, one on the right. */
function twoObjects() {
  const data = new Uint8Array(WIDTH * HEIGHT);
  for (let y = 30; y < 70; y++) {
    for (let x = 20; x < 60; x++) data[y * WIDTH + x] = 255;
    for (let x = 130; x < 170; x++) data[y * WIDTH + x] = 255;
  }
  return { data, width: WIDTH, height: HEIGHT };
}

describe(maskWithHints.name, () => {
  it('clears everything outside the region', () => {
    const mask = maskWithHints(twoObjects(), { region: { left: 0, top: 0, right: 0.5, bottom: 1 }, keepPoints: [] });
    expect(mask.data[50 * WIDTH + 40]).toBe(255);
    expect(mask.data[50 * WIDTH + 150]).toBe(0);
  });

  it('keeps only the parts under keep points, and the whole mask when no point lands on a part', () => {
    const kept = maskWithHints(twoObjects(), { region: null, keepPoints: [{ x: 0.75, y: 0.5 }] });
    expect(kept.data[50 * WIDTH + 40]).toBe(0);
    expect(kept.data[50 * WIDTH + 150]).toBe(255);
    const missed = maskWithHints(twoObjects(), { region: null, keepPoints: [{ x: 0.5, y: 0.05 }] });
    expect(missed.data[50 * WIDTH + 40]).toBe(255);
    expect(missed.data[50 * WIDTH + 150]).toBe(255);
  });
});

describe(regionPixels.name, () => {
  it('turns fractions into whole pixels inside the image, never empty', () => {
    expect(regionPixels({ left: 0.1, top: 0.2, right: 0.5, bottom: 1 }, WIDTH, HEIGHT)).toEqual({
      left: 20,
      top: 20,
      width: 80,
      height: 80,
    });
    expect(regionPixels({ left: 1, top: 1, right: 1, bottom: 1 }, WIDTH, HEIGHT)).toEqual({
      left: 199,
      top: 99,
      width: 1,
      height: 1,
    });
  });
});

describe(softShare.name, () => {
  it('is 0 for a hard mask, higher for a soft one, and 1 for an empty one', () => {
    expect(softShare(twoObjects())).toBe(0);
    const soft = twoObjects();
    soft.data.forEach((value, i) => (soft.data[i] = value ? 128 : 0));
    expect(softShare(soft)).toBe(1);
    expect(softShare({ data: new Uint8Array(10), width: 10, height: 1 })).toBe(1);
  });
});
