import { subjectBounds } from './alpha-mask';

describe(subjectBounds.name, () => {
  it('bounds the pixels at or above the threshold', () => {
    // 5 x 4, a soft pixel (100) outside the opaque block.
    const data = Uint8Array.from([0, 0, 0, 0, 0, 0, 200, 255, 0, 100, 0, 128, 255, 0, 0, 0, 0, 0, 0, 0]);
    expect(subjectBounds({ data, width: 5, height: 4 })).toEqual({ left: 1, top: 1, width: 2, height: 2 });
    expect(subjectBounds({ data, width: 5, height: 4 }, 1)).toEqual({ left: 1, top: 1, width: 4, height: 2 });
  });

  it('is null when nothing reaches the threshold', () => {
    expect(subjectBounds({ data: new Uint8Array(12).fill(127), width: 4, height: 3 })).toBeNull();
  });
});
