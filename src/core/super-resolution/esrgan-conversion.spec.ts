import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import sharp from 'sharp';
import { esrganSource, prepareEsrganModel, type ModelScale } from './esrgan-model';
import { EsrganSession } from './esrgan-session';

/** Shared by every test file that needs a model: preparation is atomic, so parallel files are safe. */
const MODELS_DIR = path.join(os.tmpdir(), 'imgjobs-test-models');
/** TensorFlow.js's pure JavaScript backend takes a few seconds for a tile this small. */
const SIDE = 24;

/** A 24 x 24 patch with what the model must get right: a hard diagonal edge, a thin line, a dot and a gradient. */
async function patch(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIDE}" height="${SIDE}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#d8c8a0"/><stop offset="1" stop-color="#304870"/></linearGradient></defs>
    <rect width="${SIDE}" height="${SIDE}" fill="url(#g)"/>
    <polygon points="0,24 24,6 24,24" fill="#a02020"/>
    <line x1="3" y1="2" x2="20" y2="9" stroke="#101010" stroke-width="1"/>
    <circle cx="7" cy="15" r="2.5" fill="#f0f0f0"/>
  </svg>`;
  return sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
}

/** The package's own Keras model run by TensorFlow.js on interleaved RGB (NHWC), rounded to bytes as we round ours. */
async function referenceOutput(scale: ModelScale, rgb: Buffer): Promise<Uint8Array> {
  const { modelJson, shard } = await esrganSource(scale);
  const json = JSON.parse(modelJson.toString('utf8')) as {
    modelTopology: object;
    weightsManifest: { weights: tf.io.WeightsManifestEntry[] }[];
  };
  const model = await tf.loadLayersModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest[0].weights,
      weightData: new Uint8Array(shard).buffer,
    }),
  );
  const output = model.predict(tf.tensor4d(Float32Array.from(rgb), [1, SIDE, SIDE, 3])) as tf.Tensor;
  const values = await output.data();
  output.dispose();
  model.dispose();
  return Uint8Array.from(values, (value) => Math.max(0, Math.min(255, Math.round(value))));
}

/** The prepared ONNX model run by onnxruntime on the same pixels (planar in and out), as interleaved bytes. */
async function convertedOutput(scale: ModelScale, rgb: Buffer): Promise<Uint8Array> {
  const session = await EsrganSession.open(await prepareEsrganModel({ modelsDir: MODELS_DIR, scale }), {
    intraOpThreads: 1,
  });
  try {
    const plane = SIDE * SIDE;
    const planar = new Float32Array(3 * plane);
    for (let i = 0; i < plane; i++) for (let c = 0; c < 3; c++) planar[c * plane + i] = rgb[i * 3 + c];
    const output = await session.enlarge(planar, SIDE, SIDE);
    const outputPlane = plane * scale * scale;
    const interleaved = new Uint8Array(3 * outputPlane);
    for (let i = 0; i < outputPlane; i++) {
      for (let c = 0; c < 3; c++)
        interleaved[i * 3 + c] = Math.max(0, Math.min(255, Math.round(output[c * outputPlane + i])));
    }
    return interleaved;
  } finally {
    await session.release();
  }
}

describe('the ESRGAN conversion to ONNX', () => {
  beforeAll(async () => {
    // Silences TensorFlow.js's advice to install its native Node backend.
    tf.enableProdMode();
    await tf.setBackend('cpu');
  });

  it.each([2, 4] as const)(
    'gives the x%i model the same output as the original run by TensorFlow.js, within 1 level',
    async (scale) => {
      const rgb = await patch();
      const [reference, converted] = await Promise.all([referenceOutput(scale, rgb), convertedOutput(scale, rgb)]);
      expect(converted.length).toBe(SIDE * SIDE * scale * scale * 3);
      let largest = 0;
      for (let i = 0; i < converted.length; i++) largest = Math.max(largest, Math.abs(converted[i] - reference[i]));
      console.log(
        `x${scale}: largest difference from TensorFlow.js ${largest} level(s) over ${converted.length} values`,
      );
      expect(largest).toBeLessThanOrEqual(1);
    },
    120_000,
  );
});
