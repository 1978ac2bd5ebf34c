import { BACKDROPS, PRODUCTS } from '../product-shots';
import type { Backdrop } from './backdrops';
import { HARD_KINDS, PROP_KINDS } from './hard-scenes';
import { HARD_SHOT_SPECS, type HardShotSpec } from './hard-specs';
import { PROP_FAMILIES } from './props';

/**
 * The shots background removal is scored on, in one of two sizes, chosen by QUALITY_SET (read here
 * and nowhere else):
 *
 * - 'full': every product on every backdrop (48) and every hard shot (90). `npm run bench:quality:api`
 *   runs these; BENCHMARKS.md records what they give.
 * - 'ci' (the default): about a fifth of each, by a fixed rule on the shots' positions in their
 *   lists, never on their scores, so that every product, backdrop, hard kind, prop family (tuned on
 *   and held out) and prop material is in it:
 *   - plain shots: the diagonal of the products x backdrops square, product i on backdrop
 *     i mod 6 (8 shots: every product once, every backdrop at least once);
 *   - prop shots (touching, overlapping, among, beside: 8 families x 2 each): in the kind of index
 *     k, the families f with f + k even, and of each such family its shot of repeat k >> 1 (4 per
 *     kind, 16 in all). Every family is in two kinds, once as its first shot and once as its
 *     second; touching (k 0) and beside (k 3) take complementary halves of the families, so the
 *     hint shots (touching and beside) hold every family once. Materials rotate with kind, family
 *     and repeat in HARD_SHOT_SPECS, so all three come in;
 *   - shots without props (filling, white, thin): every second of the kind's list, starting at the
 *     kind's index mod 2 (half of each kind, its hardest products among them: a product keeps to
 *     neighbouring places in its kind's list, so no product is left out).
 */
export type QualitySet = 'full' | 'ci';

export function qualitySet(value = process.env.QUALITY_SET): QualitySet {
  if (value === undefined || value === '' || value === 'ci') return 'ci';
  if (value === 'full') return 'full';
  throw new Error(`QUALITY_SET is '${value}', expected 'full' or 'ci'`);
}

export interface PlainShotSpec {
  product: string;
  backdrop: Backdrop;
}

/** Product x backdrop pairs of the set, products in their order, then backdrops. */
export function plainQualityShots(set: QualitySet = qualitySet()): PlainShotSpec[] {
  return PRODUCTS.flatMap((product, p) =>
    BACKDROPS.filter((_, b) => set === 'full' || b === p % BACKDROPS.length).map((backdrop) => ({ product, backdrop })),
  );
}

/** Whether the ci subset holds a hard shot, by its place in HARD_SHOT_SPECS (see above). */
function inCiSubset(spec: HardShotSpec, index: number, specs: readonly HardShotSpec[]): boolean {
  const k = HARD_KINDS.indexOf(spec.kind);
  if (PROP_KINDS.includes(spec.kind)) {
    const f = PROP_FAMILIES.indexOf(spec.propFamily!);
    const repeat = specs
      .slice(0, index)
      .filter((other) => other.kind === spec.kind && other.propFamily === spec.propFamily).length;
    return (f + k) % 2 === 0 && repeat === k >> 1;
  }
  const position = specs.slice(0, index).filter((other) => other.kind === spec.kind).length;
  return position % 2 === k % 2;
}

/** The hard shots of the set, in HARD_SHOT_SPECS's order. */
export function hardQualitySpecs(
  set: QualitySet = qualitySet(),
  specs: readonly HardShotSpec[] = HARD_SHOT_SPECS,
): HardShotSpec[] {
  return specs.filter((spec, index) => set === 'full' || inCiSubset(spec, index, specs));
}
