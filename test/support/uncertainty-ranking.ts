/**
 * How well cut-outs' uncertainty finds the bad ones, measured the same way by the quality run
 * (test/integration/background-removal.int-spec.ts) and `bench/uncertainty.ts`.
 */

/** One scored cut-out. */
export interface RankedCutout {
  iou: number;
  uncertainty: number;
}

/** Below this IoU a cut-out is bad: the review loop should see it. */
export const BAD_IOU = 0.9;
/** The review loop looks at no more than this share of cut-outs. */
export const MAX_FLAGGED_SHARE = 0.25;

/** Spearman's rank correlation of two equally long lists (ties broken by order; enough for a ranking check). */
export function rankCorrelation(a: number[], b: number[]): number {
  const ranks = (values: number[]) => {
    const order = values.map((value, index) => [value, index]).sort((x, y) => x[0] - y[0]);
    const rank = new Array<number>(values.length);
    order.forEach(([, index], position) => (rank[index] = position));
    return rank;
  };
  const ra = ranks(a);
  const rb = ranks(b);
  const middle = (a.length - 1) / 2;
  let covariance = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < a.length; i++) {
    covariance += (ra[i] - middle) * (rb[i] - middle);
    va += (ra[i] - middle) ** 2;
    vb += (rb[i] - middle) ** 2;
  }
  return covariance / Math.sqrt(va * vb);
}

/** The rank correlation of uncertainty with the error, 1 - IoU. */
export function errorCorrelation(cutouts: readonly RankedCutout[]): number {
  return rankCorrelation(
    cutouts.map(({ uncertainty }) => uncertainty),
    cutouts.map(({ iou }) => 1 - iou),
  );
}

export interface ReviewRecall {
  /** Cut-outs with at least this uncertainty are flagged for review. */
  threshold: number;
  flaggedShare: number;
  /** Cut-outs with IoU below BAD_IOU, and how many of them were flagged. */
  bad: number;
  caught: number;
  /** caught / bad; 1 when there are no bad cut-outs. */
  recall: number;
}

/**
 * The review threshold that flags as many cut-outs as it can without passing `maxShare` of them
 * (cut-outs tied at the threshold are all flagged or none), and the share of bad ones it flags.
 */
export function reviewRecall(cutouts: readonly RankedCutout[], maxShare = MAX_FLAGGED_SHARE): ReviewRecall {
  const budget = Math.floor(maxShare * cutouts.length);
  const descending = cutouts.map(({ uncertainty }) => uncertainty).sort((x, y) => y - x);
  let threshold = Infinity;
  for (let i = 0; i < budget; i++) {
    // A value is a threshold only where the next one is lower, so the tie never spills past the budget.
    if (descending[i] > (descending[i + 1] ?? -Infinity)) threshold = descending[i];
  }
  const flagged = cutouts.filter(({ uncertainty }) => uncertainty >= threshold);
  const bad = cutouts.filter(({ iou }) => iou < BAD_IOU).length;
  const caught = flagged.filter(({ iou }) => iou < BAD_IOU).length;
  return {
    threshold,
    flaggedShare: flagged.length / cutouts.length,
    bad,
    caught,
    recall: bad === 0 ? 1 : caught / bad,
  };
}

/** One line of figures: correlation, threshold, flagged share and recall. */
export function rankingSummary(label: string, cutouts: readonly RankedCutout[]): string {
  const { threshold, flaggedShare, bad, caught, recall } = reviewRecall(cutouts);
  return (
    `${label}: ${cutouts.length} cut-outs, rank correlation with (1 - IoU) ${errorCorrelation(cutouts).toFixed(3)}; ` +
    `threshold ${threshold.toFixed(3)} flags ${(flaggedShare * 100).toFixed(1)} % and ${caught} of the ${bad} ` +
    `with IoU < ${BAD_IOU} (recall ${(recall * 100).toFixed(1)} %)`
  );
}
