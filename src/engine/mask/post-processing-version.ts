/**
 * The version of our mask post-processing (the code in this folder that turns a segmenter's
 * answer into the cut-out's alpha: subject selection, hole policy, hints, edge refinement,
 * decontamination), reported with every cut-out as `segmentation.post_processing_version`.
 *
 * Bump it in the change that makes the same model answer give different masks or edges (a new
 * step, a changed threshold or filter radius); leave it for changes that keep every pixel (speed,
 * naming, tests). It is a plain counter: clients only compare it for equality.
 */
export const MASK_POST_PROCESSING_VERSION = '1';
