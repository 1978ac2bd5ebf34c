import sharp from 'sharp';
import { escapeXml, ImageService, type SimulatedResultSpec } from './image.service';
import type { OutputFormat } from './output-format';

const MAGIC: Record<OutputFormat, (bytes: Buffer) => boolean> = {
  png: (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpg: (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  webp: (bytes) => bytes.toString('ascii', 0, 4) === 'RIFF' && bytes.toString('ascii', 8, 12) === 'WEBP',
  avif: (bytes) => bytes.toString('ascii', 4, 12) === 'ftypavif',
};

const SHARP_FORMAT: Record<OutputFormat, string> = { png: 'png', jpg: 'jpeg', webp: 'webp', avif: 'heif' };

const spec = (overrides: Partial<SimulatedResultSpec> = {}): SimulatedResultSpec => ({
  width: 512,
  height: 384,
  format: 'png',
  label: 'sandbox remove_background #1',
  seed: 'result-1',
  ...overrides,
});

/** A plain image of the given size, standing in for a tool's output. */
const solidImage = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .png()
    .toBuffer();

/** The colour at the top-left corner, where the label never reaches. */
async function cornerPixel(image: Buffer): Promise<number[]> {
  const { data } = await sharp(image)
    .extract({ left: 0, top: 0, width: 1, height: 1 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return Array.from(data);
}

describe(ImageService.name, () => {
  const images = new ImageService();

  describe('renderSimulatedResult', () => {
    it.each<OutputFormat>(['png', 'jpg', 'webp', 'avif'])('encodes %s at the requested size', async (format) => {
      const image = await images.renderSimulatedResult(spec({ format }));
      expect(MAGIC[format](image)).toBe(true);
      const metadata = await sharp(image).metadata();
      expect({ format: metadata.format, width: metadata.width, height: metadata.height }).toEqual({
        format: SHARP_FORMAT[format],
        width: 512,
        height: 384,
      });
    });

    it('gives the same bytes for the same spec', async () => {
      const first = await images.renderSimulatedResult(spec());
      const second = await images.renderSimulatedResult(spec());
      expect(first.equals(second)).toBe(true);
    });

    it('picks different colours for different seeds', async () => {
      const a = await images.renderSimulatedResult(spec({ seed: 'result-a' }));
      const b = await images.renderSimulatedResult(spec({ seed: 'result-b' }));
      expect(await cornerPixel(a)).not.toEqual(await cornerPixel(b));
    });

    it('draws a label full of XML syntax without breaking the SVG', async () => {
      const label = `<&> "quoted" 'single' </text><script>x</script> ]]> \u0000\u0007 ✓ 🙂`;
      const image = await images.renderSimulatedResult(spec({ label }));
      const plain = await images.renderSimulatedResult(spec({ label: '' }));
      expect((await sharp(image).metadata()).width).toBe(512);
      // The text really was drawn: the picture differs from the same background without it.
      expect(image.equals(plain)).toBe(false);
    });

    it('renders tiny sizes and very long labels', async () => {
      const image = await images.renderSimulatedResult(spec({ width: 1, height: 1, label: 'x'.repeat(5000) }));
      expect(await images.describe(image)).toEqual({ width: 1, height: 1, format: 'png' });
    });

    it.each([0, -1, 1.5, Number.NaN, 100_000])('refuses width %p', async (width) => {
      await expect(images.renderSimulatedResult(spec({ width }))).rejects.toThrow(RangeError);
    });
  });

  describe('thumbnail', () => {
    it.each([
      ['landscape', 1200, 800, 256, 171],
      ['portrait', 600, 1000, 154, 256],
      ['square', 300, 300, 256, 256],
      ['small (never enlarged)', 120, 80, 120, 80],
    ])('fits a %s image inside 256 px as WebP', async (_shape, width, height, thumbWidth, thumbHeight) => {
      const thumbnail = await images.thumbnail(await solidImage(width, height));
      expect(MAGIC.webp(thumbnail)).toBe(true);
      expect(await images.describe(thumbnail)).toEqual({ width: thumbWidth, height: thumbHeight, format: 'webp' });
    });

    it('turns an image upright by its EXIF orientation', async () => {
      // Stored 400x200 with orientation 6 (rotate 90° clockwise to view): seen as 200x400.
      const rotated = await sharp(await solidImage(400, 200))
        .jpeg()
        .withMetadata({ orientation: 6 })
        .toBuffer();
      expect(await images.describe(rotated)).toEqual({ width: 200, height: 400, format: 'jpeg' });
      expect(await images.describe(await images.thumbnail(rotated))).toEqual({
        width: 128,
        height: 256,
        format: 'webp',
      });
    });

    it('rejects bytes that are not an image', async () => {
      await expect(images.thumbnail(Buffer.from('not an image'))).rejects.toThrow();
    });
  });

  describe('describe', () => {
    it('reports size and format', async () => {
      const image = await images.renderSimulatedResult(spec({ format: 'jpg', width: 64, height: 32 }));
      expect(await images.describe(image)).toEqual({ width: 64, height: 32, format: 'jpeg' });
    });

    it('rejects bytes that are not an image', async () => {
      await expect(images.describe(Buffer.from('<html></html>'))).rejects.toThrow();
    });
  });
});

describe(escapeXml.name, () => {
  it('escapes markup and drops characters XML cannot hold', () => {
    expect(escapeXml(`a<b>&"c"'d'\u0000\u001f\uFFFE`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;');
  });
});
