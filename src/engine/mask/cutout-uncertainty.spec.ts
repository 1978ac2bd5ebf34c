import { cutoutUncertainty, type CutoutEvidence } from './cutout-uncertainty';

const SURE: CutoutEvidence = { softEdges: 0, seenThrough: 0, filledHoles: 0, propDoubt: 0, holeDoubt: 0 };

describe(cutoutUncertainty.name, () => {
  it('is 0 with no evidence of doubt and grows with each piece, staying within 0..1', () => {
    expect(cutoutUncertainty(SURE)).toBe(0);
    const some = cutoutUncertainty({ ...SURE, propDoubt: 0.2 });
    const more = cutoutUncertainty({ ...SURE, propDoubt: 0.2, holeDoubt: 0.2 });
    expect(some).toBeGreaterThan(0);
    expect(more).toBeGreaterThan(some);
    expect(cutoutUncertainty({ softEdges: 5, seenThrough: 5, filledHoles: 5, propDoubt: 5, holeDoubt: 5 })).toBe(1);
    expect(cutoutUncertainty({ ...SURE, softEdges: -1 })).toBe(0);
  });

  it('lets one strong doubt decide: half the inside seen through is as unsure as it gets', () => {
    expect(cutoutUncertainty({ ...SURE, seenThrough: 0.5 })).toBe(1);
    expect(cutoutUncertainty({ ...SURE, seenThrough: 0.4, softEdges: 0.01 })).toBeGreaterThan(
      cutoutUncertainty({ ...SURE, softEdges: 0.05, propDoubt: 0.1 }),
    );
  });

  it('weighs a near prop decision less than the same share of soft edges', () => {
    expect(cutoutUncertainty({ ...SURE, propDoubt: 0.1 })).toBeLessThan(cutoutUncertainty({ ...SURE, softEdges: 0.1 }));
  });
});
