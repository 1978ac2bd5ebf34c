import { loadConfig } from '../core/config/load-config';
import { prepareIsnetModel } from '../core/segmentation/isnet-model';
import { configuredModels } from '../core/segmentation/segmentation-models';
import { prepareEsrganModel, type ModelScale } from '../core/super-resolution/esrgan-model';

const UPSCALER_SCALES: ModelScale[] = [2, 4];

/**
 * `npm run model:prepare`: assembles, verifies and converts the shipped segmentation model (at
 * SEGMENTATION_INPUT_SIZE, and at the size of every manifest in SEGMENTATION_MODELS that uses the
 * shipped weights) and the upscaler's x2 and x4 super-resolution models into MODELS_DIR ahead of
 * time (an image build, a deploy step), so the first worker start or the first result does not
 * spend seconds on it. Workers do the same on their own when a prepared file is missing. An
 * operator's own weights are used where they are: a worker checks them as it starts.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const models = await configuredModels({ ...config, SEGMENTER: 'local' });
  const sizes = new Set<number>([config.SEGMENTATION_INPUT_SIZE]);
  for (const { name } of models.all) {
    const manifest = models.manifest(name);
    if (manifest?.weights.kind === 'shipped' && typeof manifest.input.size === 'number') sizes.add(manifest.input.size);
  }
  for (const inputSize of sizes) {
    const model = await prepareIsnetModel({ modelsDir: config.MODELS_DIR, inputSize });
    process.stdout.write(`Prepared ${model.path} (input ${model.inputSize} px, sha256 ${model.sha256})\n`);
  }
  for (const scale of UPSCALER_SCALES) {
    const upscaler = await prepareEsrganModel({ modelsDir: config.MODELS_DIR, scale });
    process.stdout.write(`Prepared ${upscaler.path} (x${upscaler.scale}, sha256 ${upscaler.sha256})\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
