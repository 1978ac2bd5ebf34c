import { loadConfig } from '../core/config/load-config';
import { prepareIsnetModel } from '../core/segmentation/isnet-model';

/**
 * `npm run model:prepare`: assembles, verifies and converts the segmentation model into
 * MODELS_DIR ahead of time (an image build, a deploy step), so the first worker start does not
 * spend seconds on it. Workers do the same on their own when the prepared file is missing.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const model = await prepareIsnetModel({ modelsDir: config.MODELS_DIR, inputSize: config.SEGMENTATION_INPUT_SIZE });
  process.stdout.write(`Prepared ${model.path} (input ${model.inputSize} px, sha256 ${model.sha256})\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
