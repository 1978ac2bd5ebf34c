import { resizeOnly } from '../../../../test/support/edit-requests';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { modelScaleFor, planEdit } from './edit-plan';
import type { EditRequest } from './edit-request';

const MAX_PIXELS = 50_000_000;

const request = (resize: Partial<EditRequest['resize']>) => resizeOnly({ upscale: true, ...resize });

/** The failure planEdit throws, as the client would see it. */
function failureOf(plan: () => unknown): { code: ResultErrorCode; message: string } {
  try {
    plan();
  } catch (error) {
    if (error instanceof ResultFailure) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('planEdit accepted the request');
}

describe(modelScaleFor.name, () => {
  it('runs no model without an enlargement, x2 up to twice the size, x4 above', () => {
    expect([0.5, 1, 1.01, 1.5, 2, 2.01, 3, 4, 6].map(modelScaleFor)).toEqual([null, null, 2, 2, 2, 4, 4, 4, 4]);
  });
});

describe(planEdit.name, () => {
  it('enlarges with the model only when upscale is asked and the planned size is larger than the source', () => {
    expect(planEdit({ width: 600, height: 400 }, request({}), MAX_PIXELS)).toMatchObject({
      geometry: { scaled: { width: 1200, height: 800 } },
      modelScale: 2,
    });
    expect(planEdit({ width: 600, height: 400 }, request({ width: 1800 }), MAX_PIXELS).modelScale).toBe(4);
    expect(planEdit({ width: 600, height: 400 }, request({ width: 300 }), MAX_PIXELS).modelScale).toBeNull();
    expect(planEdit({ width: 600, height: 400 }, request({ width: 1800, upscale: false }), MAX_PIXELS)).toMatchObject({
      geometry: { scaled: { width: 1800, height: 1200 } },
      modelScale: null,
    });
    // cover enlarges by the larger ratio (here 3, from the height) and cuts the overflow.
    const cover = planEdit(
      { width: 600, height: 400 },
      request({ width: 900, height: 1200, fit: 'cover' }),
      MAX_PIXELS,
    );
    expect(cover.modelScale).toBe(4);
  });

  it('fails an upscale the side limit would shrink, rather than capping it', () => {
    expect(failureOf(() => planEdit({ width: 5000, height: 3000 }, request({}), MAX_PIXELS))).toEqual({
      code: ResultErrorCode.SourceTooLarge,
      message: expect.stringContaining('would make a 10000 x 6000 image; results are at most 8192 pixels a side'),
    });
    expect(failureOf(() => planEdit({ width: 1000, height: 3000 }, request({ width: 3000 }), MAX_PIXELS)).code).toBe(
      ResultErrorCode.SourceTooLarge,
    );
    // Without upscale the old cap stands.
    expect(
      planEdit({ width: 1000, height: 3000 }, request({ width: 3000, upscale: false }), MAX_PIXELS).geometry.scaled,
    ).toEqual({ width: 2731, height: 8192 });
  });

  it("fails an upscale whose planned image or model's output holds more than a worker holds at once", () => {
    expect(failureOf(() => planEdit({ width: 4000, height: 4000 }, request({ width: 5000 }), MAX_PIXELS))).toEqual({
      code: ResultErrorCode.SourceTooLarge,
      message: expect.stringContaining("needs the x2 model's output of 64 megapixels; at most 50 megapixels"),
    });
    expect(failureOf(() => planEdit({ width: 1000, height: 1000 }, request({ width: 8000 }), MAX_PIXELS))).toEqual({
      code: ResultErrorCode.SourceTooLarge,
      message: expect.stringContaining('needs the enlarged image of 64 megapixels'),
    });
    expect(planEdit({ width: 1700, height: 1700 }, request({ width: 6800 }), MAX_PIXELS).modelScale).toBe(4);
  });
});
