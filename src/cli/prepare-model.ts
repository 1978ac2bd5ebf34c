import { loadConfig } from '../core/config/load-config';
import { prepareIsnetModel } from '../core/segmentation/isnet-model';
import { prepareEsrganModel, type ModelScale } from '../core/super-resolution/esrgan-model';

const UPSCALER_SCALES: ModelScale[] = [2, 4];

/**
 * `npm run model:prepare`: assembles, verifies and converts the segmentation model and the
 * upscaler's x2 and x4 super-resolution models into MODELS_DIR ahead of time (an image build, a
 * deploy step), so the first worker start or the first result does not spend seconds on it.
 * Workers do the same on their own when a prepared file is missing.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const model = await prepareIsnetModel({ modelsDir: config.MODELS_DIR, inputSize: config.SEGMENTATION_INPUT_SIZE });
  process.stdout.write(`Prepared ${model.path} (input ${model.inputSize} px, sha256 ${model.sha256})\n`);
  for (const scale of UPSCALER_SCALES) {
    const upscaler = await prepareEsrganModel({ modelsDir: config.MODELS_DIR, scale });
    process.stdout.write(`Prepared ${upscaler.path} (x${upscaler.scale}, sha256 ${upscaler.sha256})\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
