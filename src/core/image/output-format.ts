/** The formats a result can be written in, in the order the API lists them. */
export const OUTPUT_FORMATS = ['jpg', 'png', 'webp', 'avif'] as const;

/** A result file's format: the one type the tools, the image service, the job rows and the presets share. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
