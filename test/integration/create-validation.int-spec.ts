import type { Response } from 'supertest';
import { CreateJobsController } from '../../src/modules/jobs/create-jobs.controller';
import { expectError } from '../support/http-errors';
import { creditTotals, idempotencyKey, imageInputs, withFakeProviderForEveryTool, writtenRows } from '../support/jobs';
import { UNREACHABLE_CREATE_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * Every create endpoint refuses bad input with 400 `invalid_request` naming the offending
 * field (contract sections 1, 2 and 6), before anything is written: no job or result rows,
 * no credit movement, no idempotency record (contract section 9). Each table is run with a
 * sandbox and a live key, since sandbox requests are validated exactly like live ones
 * (contract section 12); the live key makes a missed refusal show up as a reservation.
 */

type Body = Record<string, unknown>;
/** What is wrong, a patch deep-merged into the endpoint's valid body, and the paths the 400 must name. */
type RefusalCase = [what: string, patch: Body, paths: string[]];

const HOOK = 'https://hooks.example.com/image-jobs';
const SOURCE = 'https://images.example.com/p/source.jpg';
const PROMPT = 'Place the bottle on a marble counter in soft morning light';
/** Valid subject hints, refused only where nothing is segmented. */
const REGION_HINT = { region: { left: 0.1, top: 0.1, right: 0.9, bottom: 0.9 } };

/** A syntactically valid URL of exactly `length` characters. */
const urlOfLength = (origin: string, length: number) => `${origin}/${'a'.repeat(length - origin.length - 1)}`;

function isPlainObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge member by member; anything else replaces. An `undefined` member is dropped from the JSON sent. */
function patched(base: Body, patch: Body): Body {
  const merged: Body = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = merged[key];
    merged[key] = isPlainObject(value) && isPlainObject(current) ? patched(current, value) : value;
  }
  return merged;
}

/** A list of source images and what can be wrong with it and with its elements. */
function sourceImageCases(
  field: string,
  urlField: string,
  { required, max }: { required: boolean; max: number },
): RefusalCase[] {
  const image = (i: number): Body => ({
    [urlField]: `https://images.example.com/p/${i}.jpg`,
    external_id: `item-${i}`,
  });
  const images = (count: number) => Array.from({ length: count }, (_, i) => image(i));
  /** The second element carries the fault, so the path must carry its index. */
  const second = (patch: Body): Body => ({ [field]: [image(0), { ...image(1), ...patch }] });
  const at = (member: string) => `${field}[1].${member}`;
  return [
    ...(required
      ? ([
          [`${field} missing`, { [field]: undefined }, [field]],
          [`${field} null`, { [field]: null }, [field]],
          [`${field} empty (min 1)`, { [field]: [] }, [field]],
        ] satisfies RefusalCase[])
      : []),
    [`${field} with ${max + 1} images (max ${max})`, { [field]: images(max + 1) }, [field]],
    [`${field} an object, not an array`, { [field]: image(0) }, [field]],
    [`${field} a string, not an array`, { [field]: SOURCE }, [field]],
    [`${field}[1] a string, not an object`, { [field]: [image(0), SOURCE] }, [`${field}[1]`]],
    [`${field}[1].${urlField} missing`, second({ [urlField]: undefined }), [at(urlField)]],
    [`${field}[1].${urlField} not a URL`, second({ [urlField]: 'not a url' }), [at(urlField)]],
    [`${field}[1].${urlField} without a scheme`, second({ [urlField]: 'images.example.com/p/1.jpg' }), [at(urlField)]],
    [
      `${field}[1].${urlField} with an ftp scheme`,
      second({ [urlField]: 'ftp://images.example.com/p/1.jpg' }),
      [at(urlField)],
    ],
    [`${field}[1].${urlField} empty`, second({ [urlField]: '' }), [at(urlField)]],
    [
      `${field}[1].${urlField} of 2049 characters (max 2048)`,
      second({ [urlField]: urlOfLength('https://images.example.com', 2049) }),
      [at(urlField)],
    ],
    [`${field}[1].${urlField} a number`, second({ [urlField]: 42 }), [at(urlField)]],
    [
      `${field}[1].${urlField} at a loopback address`,
      second({ [urlField]: 'http://127.0.0.1/p/1.jpg' }),
      [at(urlField)],
    ],
    [
      `${field}[1].${urlField} at the cloud metadata address`,
      second({ [urlField]: 'http://169.254.169.254/latest/meta-data' }),
      [at(urlField)],
    ],
    [`${field}[1].external_id empty (min 1)`, second({ external_id: '' }), [at('external_id')]],
    [
      `${field}[1].external_id of 201 characters (max 200)`,
      second({ external_id: 'x'.repeat(201) }),
      [at('external_id')],
    ],
    [`${field}[1].external_id a number`, second({ external_id: 7 }), [at('external_id')]],
    [`unknown member ${field}[1].alt_text`, second({ alt_text: 'a bottle' }), [at('alt_text')]],
  ];
}

/** `output.quality`, `output.dpi` and `output.metadata`, which product photo jobs take too. */
const fileChoiceCases = (): RefusalCase[] => [
  ['output.quality 0 (min 1)', { output: { quality: 0 } }, ['output.quality']],
  ['output.quality 101 (max 100)', { output: { quality: 101 } }, ['output.quality']],
  ['output.quality fractional', { output: { quality: 80.5 } }, ['output.quality']],
  ['output.quality a string', { output: { quality: '80' } }, ['output.quality']],
  ['output.dpi 0 (min 1)', { output: { dpi: 0 } }, ['output.dpi']],
  ['output.dpi 2401 (max 2400)', { output: { dpi: 2401 } }, ['output.dpi']],
  ['output.dpi fractional', { output: { dpi: 72.5 } }, ['output.dpi']],
  ['output.dpi a string', { output: { dpi: '300' } }, ['output.dpi']],
  ['output.metadata not an allowed value', { output: { metadata: 'all' } }, ['output.metadata']],
  ['output.metadata in upper case', { output: { metadata: 'KEEP' } }, ['output.metadata']],
  ['output.metadata null (it has a default)', { output: { metadata: null } }, ['output.metadata']],
];

const outputCases = (): RefusalCase[] => [
  ['output.format not an allowed value', { output: { format: 'gif' } }, ['output.format']],
  ['output.format in upper case', { output: { format: 'PNG' } }, ['output.format']],
  ['output.number_of_images below 1', { output: { number_of_images: 0 } }, ['output.number_of_images']],
  ['output.number_of_images above 4', { output: { number_of_images: 5 } }, ['output.number_of_images']],
  ['output.number_of_images fractional', { output: { number_of_images: 1.5 } }, ['output.number_of_images']],
  ['output.number_of_images a string', { output: { number_of_images: '2' } }, ['output.number_of_images']],
  ['output a string, not an object', { output: 'png' }, ['output']],
  ['output an array, not an object', { output: [] }, ['output']],
  ['unknown member output.compression', { output: { compression: 9 } }, ['output.compression']],
  ...fileChoiceCases(),
  ['output.quality with png', { output: { format: 'png', quality: 80 } }, ['output.quality']],
  ['output.quality with the default format (png)', { output: { format: undefined, quality: 80 } }, ['output.quality']],
  ['output.lossless with jpg', { output: { format: 'jpg', lossless: true } }, ['output.lossless']],
  ['output.lossless with avif', { output: { format: 'avif', lossless: true } }, ['output.lossless']],
  [
    'output.lossless with the default format (png)',
    { output: { format: undefined, quality: undefined, lossless: true } },
    ['output.lossless'],
  ],
  ['output.lossless with a quality', { output: { format: 'webp', lossless: true, quality: 80 } }, ['output.lossless']],
  ['output.lossless a string', { output: { format: 'webp', lossless: 'true' } }, ['output.lossless']],
];

/** N x M over 20 results (contract section 6): 6 images x 4 images each. */
const tooManyResults = (): RefusalCase => [
  '6 images x 4 each is 24 results (max 20)',
  { input: imageInputs(6), output: { number_of_images: 4 } },
  ['output.number_of_images'],
];

const webhookCases = (): RefusalCase[] => [
  ['webhook_url with http://', { webhook_url: 'http://hooks.example.com/image-jobs' }, ['webhook_url']],
  ['webhook_url not a URL', { webhook_url: 'not a url' }, ['webhook_url']],
  ['webhook_url without a scheme', { webhook_url: 'hooks.example.com/image-jobs' }, ['webhook_url']],
  ['webhook_url empty', { webhook_url: '' }, ['webhook_url']],
  [
    'webhook_url of 2049 characters (max 2048)',
    { webhook_url: urlOfLength('https://hooks.example.com', 2049) },
    ['webhook_url'],
  ],
  ['webhook_url a number', { webhook_url: 42 }, ['webhook_url']],
  ['webhook_url an object', { webhook_url: { url: HOOK } }, ['webhook_url']],
  ['webhook_url at a loopback address', { webhook_url: 'https://127.0.0.1/hook' }, ['webhook_url']],
  ['webhook_url at the cloud metadata address', { webhook_url: 'https://169.254.169.254/latest' }, ['webhook_url']],
];

const unknownTopLevel = (): RefusalCase => ['unknown top-level field', { callback_url: HOOK }, ['callback_url']];

const promptCases = (path: string, patch: (prompt: unknown) => Body): RefusalCase[] => [
  [`${path} missing`, patch(undefined), [path]],
  [`${path} empty (min 1)`, patch(''), [path]],
  [`${path} of 4001 characters (max 4000)`, patch('p'.repeat(4001)), [path]],
  [`${path} a number`, patch(5), [path]],
  [`${path} an array`, patch([PROMPT]), [path]],
];

const aspectRatioCases = (path: string, patch: (ratio: unknown) => Body): RefusalCase[] => [
  [`${path} with a zero side (min 1)`, patch('0:1'), [path]],
  [`${path} with a side of 33 (max 32)`, patch('16:33'), [path]],
  [`${path} written with x`, patch('16x9'), [path]],
  [`${path} with three parts`, patch('4:5:1'), [path]],
  [`${path} fractional`, patch('1.5:1'), [path]],
  [`${path} a number`, patch(1.25), [path]],
];

interface EndpointTable {
  path: string;
  /** A body using every optional member, which must be accepted. */
  valid: Body;
  /** A body with every bound at its limit (just inside), which must be accepted too. */
  atLimits: Body;
  refusals: RefusalCase[];
}

const ENDPOINTS: EndpointTable[] = [
  {
    path: '/api/v1/image/edit',
    valid: {
      input: imageInputs(2),
      operations: {
        adjustments: { light: true, color: false },
        background: { type: 'color', color: '#F5F5F5', shadow: 'soft' },
        resizing: { width: 1200, height: 1500, fit: 'contain' },
        restorations: { upscale: true, polish: false },
      },
      output: { format: 'webp', number_of_images: 2, quality: 80, dpi: 300, metadata: 'keep' },
      webhook_url: HOOK,
    },
    atLimits: {
      input: [
        { image_url: urlOfLength('https://images.example.com', 2048), external_id: 'x'.repeat(200) },
        { image_url: SOURCE, external_id: 'x' },
        ...imageInputs(3),
      ],
      operations: { resizing: { width: 8192, height: 1, fit: 'crop' } },
      output: { number_of_images: 4, format: 'jpg', quality: 100, dpi: 2400 },
      webhook_url: urlOfLength('https://hooks.example.com', 2048),
    },
    refusals: [
      ...sourceImageCases('input', 'image_url', { required: true, max: 20 }),
      ...outputCases(),
      tooManyResults(),
      ...webhookCases(),
      unknownTopLevel(),
      ['operations.resizing.width below 1', { operations: { resizing: { width: 0 } } }, ['operations.resizing.width']],
      [
        'operations.resizing.width above 8192',
        { operations: { resizing: { width: 8193 } } },
        ['operations.resizing.width'],
      ],
      [
        'operations.resizing.width fractional',
        { operations: { resizing: { width: 10.5 } } },
        ['operations.resizing.width'],
      ],
      [
        'operations.resizing.width a string',
        { operations: { resizing: { width: '100' } } },
        ['operations.resizing.width'],
      ],
      [
        'operations.resizing.height below 1',
        { operations: { resizing: { height: 0 } } },
        ['operations.resizing.height'],
      ],
      [
        'operations.resizing.height above 8192',
        { operations: { resizing: { height: 8193 } } },
        ['operations.resizing.height'],
      ],
      [
        'operations.resizing.fit not an allowed value',
        { operations: { resizing: { fit: 'stretch' } } },
        ['operations.resizing.fit'],
      ],
      [
        'operations.background.type not an allowed value',
        { operations: { background: { type: 'blue' } } },
        ['operations.background.type'],
      ],
      ['existing_alpha not an allowed value', { existing_alpha: 'maybe' }, ['existing_alpha']],
      ['existing_alpha null (it has a default)', { existing_alpha: null }, ['existing_alpha']],
      [
        'existing_alpha use without a background operation',
        { existing_alpha: 'use', operations: { background: undefined } },
        ['existing_alpha'],
      ],
      [
        'existing_alpha use with background original (a shadow only)',
        { existing_alpha: 'use', operations: { background: { type: 'original', color: undefined } } },
        ['existing_alpha'],
      ],
      [
        'existing_alpha use with subject_hints',
        { existing_alpha: 'use', input: [...imageInputs(1), { ...imageInputs(2)[1], subject_hints: REGION_HINT }] },
        ['input[1].subject_hints'],
      ],
      [
        'operations.background.shadow not an allowed value',
        { operations: { background: { shadow: 'hard' } } },
        ['operations.background.shadow'],
      ],
      [
        'operations.background.color not #RRGGBB',
        { operations: { background: { color: 'white' } } },
        ['operations.background.color'],
      ],
      [
        'operations.background.color of 3 digits',
        { operations: { background: { color: '#FFF' } } },
        ['operations.background.color'],
      ],
      [
        'operations.background type color without a color',
        { operations: { background: { color: undefined } } },
        ['operations.background.color'],
      ],
      [
        'operations.background color with type white',
        { operations: { background: { type: 'white' } } },
        ['operations.background.color'],
      ],
      [
        'operations.adjustments.light a string',
        { operations: { adjustments: { light: 'true' } } },
        ['operations.adjustments.light'],
      ],
      [
        'operations.restorations.upscale a number',
        { operations: { restorations: { upscale: 1 } } },
        ['operations.restorations.upscale'],
      ],
      ['operations an array, not an object', { operations: [] }, ['operations']],
      ['operations.resizing a string, not an object', { operations: { resizing: '800x600' } }, ['operations.resizing']],
      ['unknown member operations.rotate', { operations: { rotate: 90 } }, ['operations.rotate']],
      [
        'unknown member operations.resizing.depth',
        { operations: { resizing: { depth: 3 } } },
        ['operations.resizing.depth'],
      ],
    ],
  },
  {
    path: '/api/v1/image/ai-edit',
    valid: {
      input: imageInputs(2),
      options: { prompt: PROMPT, aspect_ratio: '4:5' },
      output: { format: 'jpg', number_of_images: 2, quality: 90, dpi: 72, metadata: 'strip' },
      webhook_url: HOOK,
    },
    atLimits: {
      input: imageInputs(5),
      options: { prompt: 'p'.repeat(4000), aspect_ratio: '32:1' },
      output: { number_of_images: 4, format: 'webp', quality: 1, dpi: 1 },
    },
    refusals: [
      ...sourceImageCases('input', 'image_url', { required: true, max: 20 }),
      ...outputCases(),
      tooManyResults(),
      ...webhookCases(),
      unknownTopLevel(),
      ['options missing', { options: undefined }, ['options']],
      ['options a string, not an object', { options: PROMPT }, ['options']],
      ...promptCases('options.prompt', (prompt) => ({ options: { prompt } })),
      ...aspectRatioCases('options.aspect_ratio', (aspect_ratio) => ({ options: { aspect_ratio } })),
      ['unknown member options.seed', { options: { seed: 42 } }, ['options.seed']],
    ],
  },
  {
    path: '/api/v1/ad/create',
    valid: {
      input: imageInputs(2),
      creative: {
        platform: 'instagram_feed',
        goal: 'awareness',
        style: 'bold',
        headline: 'Summer sale',
        call_to_action: 'Shop now',
        brand_color: '#1A2B3C',
      },
      output: { format: 'png', number_of_images: 2, dpi: 150, metadata: 'keep' },
      webhook_url: HOOK,
    },
    atLimits: {
      input: imageInputs(5),
      creative: { platform: 'google_display', headline: 'h'.repeat(60), call_to_action: 'c'.repeat(25) },
      output: { number_of_images: 4 },
    },
    refusals: [
      ...sourceImageCases('input', 'image_url', { required: true, max: 20 }),
      ...outputCases(),
      tooManyResults(),
      ...webhookCases(),
      unknownTopLevel(),
      ['creative missing', { creative: undefined }, ['creative']],
      ['creative a string, not an object', { creative: 'instagram_feed' }, ['creative']],
      ['creative.platform missing', { creative: { platform: undefined } }, ['creative.platform']],
      ['creative.platform not an allowed value', { creative: { platform: 'snapchat' } }, ['creative.platform']],
      ['creative.goal not an allowed value', { creative: { goal: 'sales' } }, ['creative.goal']],
      ['creative.style not an allowed value', { creative: { style: 'retro' } }, ['creative.style']],
      ['creative.goal null (it has a default)', { creative: { goal: null } }, ['creative.goal']],
      ['creative.style null (it has a default)', { creative: { style: null } }, ['creative.style']],
      ['creative.headline empty (min 1)', { creative: { headline: '' } }, ['creative.headline']],
      [
        'creative.headline of 61 characters (max 60)',
        { creative: { headline: 'h'.repeat(61) } },
        ['creative.headline'],
      ],
      ['creative.headline a number', { creative: { headline: 2026 } }, ['creative.headline']],
      ['creative.call_to_action empty (min 1)', { creative: { call_to_action: '' } }, ['creative.call_to_action']],
      [
        'creative.call_to_action of 26 characters (max 25)',
        { creative: { call_to_action: 'c'.repeat(26) } },
        ['creative.call_to_action'],
      ],
      ['creative.brand_color a colour name', { creative: { brand_color: 'red' } }, ['creative.brand_color']],
      ['creative.brand_color with a non-hex digit', { creative: { brand_color: '#12345G' } }, ['creative.brand_color']],
      ['creative.brand_color of 3 digits', { creative: { brand_color: '#FFF' } }, ['creative.brand_color']],
      ['unknown member creative.font', { creative: { font: 'Inter' } }, ['creative.font']],
    ],
  },
  {
    path: '/api/v1/scene/create',
    valid: {
      input: imageInputs(2),
      scene: { prompt: 'On a wooden table beside a window', shadow: 'soft', aspect_ratio: '16:9' },
      output: { format: 'webp', number_of_images: 2 },
      webhook_url: HOOK,
    },
    atLimits: {
      input: imageInputs(5),
      scene: { prompt: 'p', aspect_ratio: '1:32' },
      output: { number_of_images: 4 },
    },
    refusals: [
      ...sourceImageCases('input', 'image_url', { required: true, max: 20 }),
      ...outputCases(),
      tooManyResults(),
      ...webhookCases(),
      unknownTopLevel(),
      ['scene missing', { scene: undefined }, ['scene']],
      ['scene an array, not an object', { scene: [] }, ['scene']],
      ...promptCases('scene.prompt', (prompt) => ({ scene: { prompt } })),
      ['scene.shadow not an allowed value', { scene: { shadow: 'hard' } }, ['scene.shadow']],
      ['scene.shadow null (it has a default)', { scene: { shadow: null } }, ['scene.shadow']],
      ...aspectRatioCases('scene.aspect_ratio', (aspect_ratio) => ({ scene: { aspect_ratio } })),
      ['unknown member scene.style', { scene: { style: 'cozy' } }, ['scene.style']],
    ],
  },
  {
    path: '/api/v1/image/generate',
    valid: {
      prompt: 'A ceramic mug on a linen tablecloth, studio light',
      input: imageInputs(2),
      options: { aspect_ratio: '1:1' },
      output: { format: 'png', number_of_images: 2 },
      webhook_url: HOOK,
    },
    // 4 references x 4 images is the most a generation can ask for, so N x M never passes 20 here.
    atLimits: {
      prompt: 'p'.repeat(4000),
      input: imageInputs(4),
      output: { number_of_images: 4 },
    },
    refusals: [
      ...promptCases('prompt', (prompt) => ({ prompt })),
      ...sourceImageCases('input', 'image_url', { required: false, max: 4 }),
      ...outputCases(),
      ...webhookCases(),
      unknownTopLevel(),
      ['options an array, not an object', { options: [] }, ['options']],
      ...aspectRatioCases('options.aspect_ratio', (aspect_ratio) => ({ options: { aspect_ratio } })),
      ['unknown member options.seed', { options: { seed: 42 } }, ['options.seed']],
    ],
  },
  {
    path: '/api/v1/remove-background',
    valid: {
      input: imageInputs(2),
      background: { type: 'color', color: '#FFFFFF', shadow: 'natural' },
      output: {
        format: 'jpg',
        number_of_images: 2,
        crop_to_subject: true,
        margin_percent: 10,
        quality: 75,
        dpi: 300,
        metadata: 'keep',
      },
      webhook_url: HOOK,
    },
    atLimits: {
      input: imageInputs(5),
      output: { format: 'png', number_of_images: 4, margin_percent: 40 },
    },
    refusals: [
      ...sourceImageCases('input', 'image_url', { required: true, max: 20 }),
      ...outputCases(),
      tooManyResults(),
      ...webhookCases(),
      unknownTopLevel(),
      ['background.type original (an image/edit value)', { background: { type: 'original' } }, ['background.type']],
      ['background.shadow not an allowed value', { background: { shadow: 'hard' } }, ['background.shadow']],
      ['background.color of 3 digits', { background: { color: '#FFF' } }, ['background.color']],
      ['background type color without a color', { background: { color: undefined } }, ['background.color']],
      ['background color with type white', { background: { type: 'white' } }, ['background.color']],
      [
        'output.format jpg with a transparent background',
        { background: { type: 'transparent', color: undefined } },
        ['output.format'],
      ],
      ['output.format jpg with the default (transparent) background', { background: undefined }, ['output.format']],
      ['output.margin_percent below 0', { output: { margin_percent: -1 } }, ['output.margin_percent']],
      ['output.margin_percent above 40', { output: { margin_percent: 41 } }, ['output.margin_percent']],
      ['output.margin_percent fractional', { output: { margin_percent: 10.5 } }, ['output.margin_percent']],
      ['output.crop_to_subject a string', { output: { crop_to_subject: 'yes' } }, ['output.crop_to_subject']],
      [
        'output.crop_to_subject null (it has a default)',
        { output: { crop_to_subject: null } },
        ['output.crop_to_subject'],
      ],
      [
        'output.margin_percent null (it has a default)',
        { output: { margin_percent: null } },
        ['output.margin_percent'],
      ],
      // A null type would slip past the jpg-with-transparent rule while meaning the transparent default.
      ['background.type null with jpg output', { background: { type: null, color: undefined } }, ['background.type']],
      ['background.shadow null (it has a default)', { background: { shadow: null } }, ['background.shadow']],
      ['background a string, not an object', { background: 'white' }, ['background']],
      ['unknown member background.blur', { background: { blur: 4 } }, ['background.blur']],
      ['existing_alpha not an allowed value', { existing_alpha: 'maybe' }, ['existing_alpha']],
      ['existing_alpha a boolean', { existing_alpha: true }, ['existing_alpha']],
      [
        'existing_alpha use with subject_hints',
        { existing_alpha: 'use', input: [...imageInputs(1), { ...imageInputs(2)[1], subject_hints: REGION_HINT }] },
        ['input[1].subject_hints'],
      ],
    ],
  },
  {
    path: '/api/v1/product-photo-jobs',
    valid: {
      images: [
        { source_url: SOURCE, external_id: 'sku-1' },
        { source_url: 'https://images.example.com/p/sku-2.jpg', external_id: 'sku-2' },
      ],
      operation: 'marketplace_clean',
      preset: 'amazon_main_image',
      preservation_level: 'balanced',
      instructions: 'Keep the label readable',
      output: { quality: 92, dpi: 300, metadata: 'keep' },
      webhook_url: HOOK,
    },
    atLimits: {
      images: Array.from({ length: 20 }, (_, i) => ({
        source_url: i === 0 ? urlOfLength('https://images.example.com', 2048) : SOURCE,
        external_id: i === 0 ? 'x'.repeat(200) : `${i}`,
      })),
      instructions: 'i'.repeat(4000),
    },
    refusals: [
      ...sourceImageCases('images', 'source_url', { required: true, max: 20 }),
      [
        'images[1].external_id missing (required here)',
        { images: [{ source_url: SOURCE, external_id: 'sku-1' }, { source_url: SOURCE }] },
        ['images[1].external_id'],
      ],
      [
        'images[1].image_url instead of source_url',
        {
          images: [
            { source_url: SOURCE, external_id: 'sku-1' },
            { image_url: SOURCE, external_id: 'sku-2' },
          ],
        },
        ['images[1].image_url', 'images[1].source_url'],
      ],
      ...webhookCases(),
      unknownTopLevel(),
      ...fileChoiceCases(),
      ['output.format (the preset decides it)', { output: { format: 'png' } }, ['output.format']],
      ['output.number_of_images (one per source)', { output: { number_of_images: 2 } }, ['output.number_of_images']],
      [
        'output.quality with a preset that writes png',
        { operation: 'remove_background', preset: 'transparent_cutout' },
        ['output.quality'],
      ],
      ['output a string, not an object', { output: 'png' }, ['output']],
      ['operation not an allowed value', { operation: 'upscale' }, ['operation']],
      ['preset not a listed id', { preset: 'zalando_main_image' }, ['preset']],
      ['preset for another operation', { operation: 'premium_ad' }, ['preset']],
      ['preservation_level not an allowed value', { preservation_level: 'loose' }, ['preservation_level']],
      ['instructions empty (min 1)', { instructions: '' }, ['instructions']],
      ['instructions of 4001 characters (max 4000)', { instructions: 'i'.repeat(4001) }, ['instructions']],
      ['instructions a number', { instructions: 5 }, ['instructions']],
    ],
  },
];

const HEADER_PATH = 'headers.idempotency-key';
const BAD_IDEMPOTENCY_KEYS: Array<[what: string, key: string]> = [
  ['empty', ''],
  ['of 7 characters (min 8)', 'abc-123'],
  ['of 161 characters (max 160)', 'k'.repeat(161)],
  ['with spaces', 'key with spaces'],
  ['with a slash', 'orders/2026/0001'],
  ['with an @', 'order@2026-0001'],
  ['with a non-ASCII letter', 'commande-été-0001'],
];
let keySerial = 0;
/**
 * The bounds just inside, using every allowed punctuation mark; unique per call, since a key is scoped to the API key.
 */
function goodIdempotencyKeys(): Array<[what: string, key: string]> {
  const serial = String(keySerial++).padStart(2, '0');
  return [
    ['of 8 characters', `Az._:-${serial}`],
    ['of 160 characters', `Az09._:-${serial}${'k'.repeat(150)}`],
  ];
}

/** The contract's error envelope (spec 2.5, contract section 2) for a 400, returning the paths it names. */
function expectInvalidRequest(res: Response): string[] {
  expectError(res, 400, 'invalid_request');
  const errors: Array<{ path: unknown; message: unknown }> = res.body.error.details.errors;
  expect(errors.length).toBeGreaterThan(0);
  for (const error of errors) {
    expect(typeof error.path).toBe('string');
    expect(typeof error.message).toBe('string');
  }
  return [...new Set(errors.map((error) => error.path as string))].sort();
}

describe(`${CreateJobsController.name} input validation`, () => {
  let t: TestApp;
  let account: SeededAccount;

  beforeAll(async () => {
    // Live keys get every tool through a fake provider; the API role never runs it, but admits live jobs.
    t = await createTestApp(UNREACHABLE_CREATE_LIMITS, { override: withFakeProviderForEveryTool() });
    account = await seedAccount(t, { credits: 100_000 });
  });
  afterAll(() => t.close());

  describe.each([
    ['sandbox', (a: SeededAccount) => a.sandboxKey],
    ['live', (a: SeededAccount) => a.liveKey],
  ])('with a %s key', (environment, keyOf) => {
    const post = (path: string, body: Body, key: string | null) => {
      const req = t
        .http()
        .post(path)
        .set(bearer(keyOf(account)));
      return (key === null ? req : req.set('Idempotency-Key', key)).send(body);
    };

    /** Sends a request that must be refused and proves nothing was written. */
    async function expectRefusedWithoutWrites(path: string, body: Body, key: string | null): Promise<string[]> {
      const rowsBefore = await writtenRows(t);
      const creditsBefore = await creditTotals(t, account.accountId);
      const paths = expectInvalidRequest(await post(path, body, key));
      expect(await writtenRows(t)).toEqual(rowsBefore);
      expect(await creditTotals(t, account.accountId)).toEqual(creditsBefore);
      return paths;
    }

    /** Sends a request that must be accepted and proves the row and credit checks would see a write. */
    async function expectAccepted(path: string, body: Body, key: string): Promise<void> {
      const rowsBefore = await writtenRows(t);
      const creditsBefore = await creditTotals(t, account.accountId);
      const res = await post(path, body, key);
      expect(res.status).toBe(202);
      const job = res.body.job;
      expect(job.sandbox).toBe(environment === 'sandbox');
      const results: number = job.total_results ?? job.total_items;
      expect(await writtenRows(t)).toEqual({
        jobs: rowsBefore.jobs + 1,
        results: rowsBefore.results + results,
        ledger: rowsBefore.ledger + (environment === 'live' ? 1 : 0),
        keys: rowsBefore.keys + 1,
      });
      if (environment === 'live') expect(job.credits_reserved).toBeGreaterThan(0);
      const balance = creditsBefore.balance - job.credits_reserved;
      expect(res.body.remaining_paid_credits).toBe(balance);
      expect(await creditTotals(t, account.accountId)).toEqual({ balance, ledgerSum: balance });
    }

    describe.each(ENDPOINTS)('POST $path', ({ path, valid, atLimits, refusals }) => {
      // Every refusal reuses one key; the control then takes it, proving no record was kept.
      const refusedKey = idempotencyKey();

      it.each(refusals)('refuses %s', async (_what, patch, expectedPaths) => {
        const paths = await expectRefusedWithoutWrites(path, patched(valid, patch), refusedKey);
        expect(paths).toEqual([...expectedPaths].sort());
      });

      it.each(BAD_IDEMPOTENCY_KEYS)('refuses an Idempotency-Key %s', async (_what, key) => {
        expect(await expectRefusedWithoutWrites(path, valid, key)).toEqual([HEADER_PATH]);
      });

      it('refuses a request without an Idempotency-Key', async () => {
        expect(await expectRefusedWithoutWrites(path, valid, null)).toEqual([HEADER_PATH]);
      });

      it('accepts the valid body, with the Idempotency-Key every refusal above used', async () => {
        await expectAccepted(path, valid, refusedKey);
      });

      it('accepts a body with every bound at its limit', async () => {
        await expectAccepted(path, atLimits, idempotencyKey());
      });

      it.each(goodIdempotencyKeys())('accepts an Idempotency-Key %s', async (_what, key) => {
        await expectAccepted(path, valid, key);
      });
    });
  });
});
