/**
 * Which model cut a result's subject out and which of our post-processing made its mask, so a
 * client can tell cut-outs made before and after a model or post-processing change apart
 * (Photoroom's `pr-background-removal-model-version`).
 */
export interface SegmentationReport {
  /** The model's name, e.g. `isnet-general-use`. */
  model: string;
  /** What identifies the model's weights; null when whatever made the mask does not say. */
  version: string | null;
  /** MASK_POST_PROCESSING_VERSION when our mask post-processing ran; null when it did not. */
  postProcessingVersion: string | null;
}

/** A report as results store and show it (snake_case, in `job_results.segmentation` and on the wire). */
export interface StoredSegmentation {
  model: string;
  version: string | null;
  post_processing_version: string | null;
}

export function storedSegmentation(report: SegmentationReport | null): StoredSegmentation | null {
  if (!report) return null;
  return { model: report.model, version: report.version, post_processing_version: report.postProcessingVersion };
}
