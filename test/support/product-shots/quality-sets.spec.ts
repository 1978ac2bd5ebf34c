import { BACKDROPS, HARD_KINDS, HARD_SHOT_SPECS, PRODUCTS } from '../product-shots';
import { hardQualitySpecs, plainQualityShots, qualitySet } from './quality-sets';
import { HELD_OUT_PROP_FAMILIES, PROP_FAMILIES, PROP_MATERIALS, TUNING_PROP_FAMILIES } from './props';

describe('quality sets', () => {
  it('reads QUALITY_SET: ci unless it says full, and nothing else', () => {
    expect(qualitySet(undefined)).toBe('ci');
    expect(qualitySet('')).toBe('ci');
    expect(qualitySet('ci')).toBe('ci');
    expect(qualitySet('full')).toBe('full');
    expect(() => qualitySet('all')).toThrow("QUALITY_SET is 'all'");
  });

  it('full is every plain shot and every hard shot', () => {
    expect(plainQualityShots('full')).toHaveLength(PRODUCTS.length * BACKDROPS.length);
    expect(hardQualitySpecs('full')).toEqual(HARD_SHOT_SPECS);
  });

  it('ci holds every product and every backdrop, about a fifth of the plain shots', () => {
    const plain = plainQualityShots('ci');
    expect(new Set(plain.map(({ product }) => product))).toEqual(new Set(PRODUCTS));
    expect(new Set(plain.map(({ backdrop }) => backdrop))).toEqual(new Set(BACKDROPS));
    expect(plain.length).toBe(PRODUCTS.length);
  });

  it('ci holds every hard kind, prop family and material, about a fifth of the hard shots', () => {
    const hard = hardQualitySpecs('ci');
    expect(new Set(hard.map(({ kind }) => kind))).toEqual(new Set(HARD_KINDS));
    const withProps = hard.filter(({ propFamily }) => propFamily !== null);
    expect(new Set(withProps.map(({ propFamily }) => propFamily))).toEqual(new Set(PROP_FAMILIES));
    expect(withProps.some(({ propFamily }) => TUNING_PROP_FAMILIES.includes(propFamily!))).toBe(true);
    expect(withProps.some(({ propFamily }) => HELD_OUT_PROP_FAMILIES.includes(propFamily!))).toBe(true);
    expect(new Set(withProps.map(({ propMaterial }) => propMaterial))).toEqual(new Set(PROP_MATERIALS));
    expect(hard.length / HARD_SHOT_SPECS.length).toBeGreaterThan(0.18);
    expect(hard.length / HARD_SHOT_SPECS.length).toBeLessThan(0.35);
    // The shots that get hints (touching and beside) hold every family.
    const hinted = withProps.filter(({ kind }) => kind === 'touching' || kind === 'beside');
    expect(new Set(hinted.map(({ propFamily }) => propFamily))).toEqual(new Set(PROP_FAMILIES));
    // A subset of the full set, in its order.
    const names = HARD_SHOT_SPECS.map(({ name }) => name);
    const positions = hard.map(({ name }) => names.indexOf(name));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(positions.every((position) => position >= 0)).toBe(true);
  });
});
