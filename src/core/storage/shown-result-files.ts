import { ApiProperty } from '@nestjs/swagger';

/** Shown on every completed result's record (a job's result, a review item): where its image can be fetched. */
export const ShownResultUrl = () =>
  ApiProperty({ type: String, nullable: true, description: 'Signed, expiring URL of the image.' });

/** Shown beside `result_url`: the image's thumbnail. */
export const ShownThumbnailUrl = () =>
  ApiProperty({ type: String, nullable: true, description: 'Signed URL of a WebP thumbnail (longest side 256 px).' });

/** Shown on every result record: where its original can be seen without the customer's URL. */
export const ShownSourcePreview = () =>
  ApiProperty({
    type: String,
    nullable: true,
    description:
      'Signed, expiring URL (like `result_url`) of a WebP preview of the source image as the service read it: ' +
      'longest side at most 1600 px (never enlarged), upright (EXIF orientation applied), sRGB, no metadata. ' +
      'Made when the result completes and kept as long as the result image. Null for a result without a source ' +
      'image (a generation from a prompt), one not completed, one completed before previews were made, and once ' +
      "retention has deleted the result's files. Sandbox results carry a generated stand-in for the source.",
  });
