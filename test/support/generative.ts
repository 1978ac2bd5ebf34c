import { fromFixture, paint, type Rgb } from './image-fixtures';
import { FakeSegmentationService } from './fake-segmentation-service';
import { ImageSourceServer } from './image-source-server';

/**
 * The product photo of the generative tests: an orange disc of radius 110 centred at (240, 180) on flat blue-grey, 480
 * x 360.
 */
export const DISC = { cx: 240, cy: 180, r: 110 };
export const ORANGE: Rgb = [240, 140, 30];
export const BLUE_GREY: Rgb = [90, 100, 120];
const inDisc = (x: number, y: number) => (x - DISC.cx) ** 2 + (y - DISC.cy) ** 2 <= DISC.r ** 2;
export const discPhoto = () => paint(480, 360, (x, y) => (inDisc(x, y) ? ORANGE : BLUE_GREY));

/** Whether two colours are within `tolerance` of each other, summed over the three channels. */
export const near = (pixel: number[], colour: number[], tolerance: number) =>
  Math.abs(pixel[0] - colour[0]) + Math.abs(pixel[1] - colour[1]) + Math.abs(pixel[2] - colour[2]) <= tolerance;

export interface GenerativeSources {
  server: ImageSourceServer;
  segmenter: FakeSegmentationService;
  photoUrl: string;
}

/** A source server with the disc photo, and a segmentation service on the same server. */
export async function startGenerativeSources(): Promise<GenerativeSources> {
  const server = await ImageSourceServer.start();
  server.serve('/product.png', await fromFixture(discPhoto()).png().toBuffer(), { contentType: 'image/png' });
  const segmenter = new FakeSegmentationService();
  server.route('/segment', segmenter.handle);
  return { server, segmenter, photoUrl: server.url('/product.png') };
}
