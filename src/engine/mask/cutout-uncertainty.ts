/**
 * One score for how sure a cut-out is, 0 sure .. 1 unsure, from what the model and the
 * selection saw. Each piece of evidence is a share in 0..1 and the score is the chance that at
 * least one of them is right to worry (1 - the product of their complements), so any one strong
 * doubt is enough and weak ones add up. It ranks cut-outs for review; it is not a calibrated
 * probability of error.
 */
export interface CutoutEvidence {
  /** The share of the subject's area where the model's probability is neither high nor low. */
  softEdges: number;
  /** How close the strongest dropped candidate came to the chosen subject (score ratio). */
  rivalry: number;
  /** How near the product-or-prop decisions came to going the other way. */
  propDoubt: number;
  /** How near the decisions on enclosed holes came to going the other way, by area. */
  holeDoubt: number;
}

/**
 * How much each piece of evidence weighs, set so the score ranks cut-outs by their error on the
 * generated shots (BENCHMARKS.md). Removing a prop is not itself doubt: a clean removal is a
 * success; what counts is how near its decisions came to going the other way.
 */
const WEIGHTS: Readonly<Record<keyof CutoutEvidence, number>> = {
  softEdges: 4,
  rivalry: 0.6,
  propDoubt: 1.5,
  holeDoubt: 2,
};

export function cutoutUncertainty(evidence: CutoutEvidence): number {
  let sure = 1;
  for (const key of Object.keys(WEIGHTS) as Array<keyof CutoutEvidence>) {
    const share = Math.min(1, Math.max(0, evidence[key] * WEIGHTS[key]));
    sure *= 1 - share;
  }
  return Math.round((1 - sure) * 1000) / 1000;
}
