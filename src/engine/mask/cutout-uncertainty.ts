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
  /** The share of the subject's inside that is backdrop seen through it (seen-through.ts). */
  seenThrough: number;
  /** The share of the cut-out that hole filling added where the model said background. */
  filledHoles: number;
  /** How near the product-or-prop decisions came to going the other way. */
  propDoubt: number;
  /** How near the decisions on enclosed holes came to going the other way, by area. */
  holeDoubt: number;
}

/**
 * How much each piece of evidence weighs: the share at which it alone makes the score 1 is
 * 1 / weight. Set on the odd-numbered half of the full quality set and checked on the even half
 * (BENCHMARKS.md, "Uncertainty"), on round values, so that no single shot decides them.
 * Soft edges are the model's own doubt and the broadest cue: a sixth of the subject's area soft
 * is as unsure as it gets. Seeing through half the inside is the same. Filled holes weigh as much
 * as soft edges because filling is a guess about area the model called background. Prop
 * decisions weigh least: they come near on most clean cut-outs of products with thin parts on
 * short seams (a chair's legs, a lamp's stem), so they only add to other doubt.
 */
const WEIGHTS: Readonly<Record<keyof CutoutEvidence, number>> = {
  softEdges: 6,
  seenThrough: 2,
  filledHoles: 6,
  propDoubt: 0.25,
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
