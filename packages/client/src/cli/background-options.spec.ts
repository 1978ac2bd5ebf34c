import { describe, expect, it } from '@jest/globals';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backgroundImageUrl } from './background-image';
import type { JobsApi } from './jobs-api';
import { editRequest, removeBackgroundRequest, UsageError } from './tool-requests';

/** Records uploads and answers each with an upload:// URL named by its key. */
function uploadingApi(): { api: JobsApi; keys: string[] } {
  const keys: string[] = [];
  const api = {
    upload: async (_bytes: Buffer, _name: string, key: string) => {
      keys.push(key);
      return { imageUrl: `upload://upl_${String(keys.length).padStart(24, '0')}`, expiresAt: '2030-01-01T00:00:00Z' };
    },
  } as unknown as JobsApi;
  return { api, keys };
}

describe('background photos and blurs on the command line', () => {
  it('sends a photo with its fit, and a blur with its mode and strength', () => {
    expect(
      removeBackgroundRequest({
        background: 'image',
        backgroundImage: 'https://cdn.example.com/marble.jpg',
        backgroundFit: 'contain',
        backgroundColor: '#102030',
      }).options,
    ).toEqual({
      background: {
        type: 'image',
        image_url: 'https://cdn.example.com/marble.jpg',
        fit: 'contain',
        color: '#102030',
      },
    });
    expect(editRequest({ background: 'blur', blurMode: 'bokeh', blurStrength: 70 }).options).toEqual({
      operations: { background: { type: 'blur', blur: { mode: 'bokeh', strength: 70 } } },
    });
  });

  it.each([
    [{ background: 'image' as const }, /needs --background-image/],
    [{ background: 'white' as const, backgroundImage: 'https://x.example/b.jpg' }, /go with --background image/],
    [{ background: 'image' as const, backgroundImage: 'b.jpg', blurStrength: 10 }, /go with --background blur/],
    [{ background: 'blur' as const, backgroundFit: 'cover' as const }, /go with --background image/],
  ])('refuses flags that do not go together: %o', (flags, message) => {
    expect(() => removeBackgroundRequest(flags)).toThrow(UsageError);
    expect(() => removeBackgroundRequest(flags)).toThrow(message);
  });

  it('uploads a local background photo once per content, and leaves URLs and dry runs alone', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'background-'));
    const file = join(folder, 'marble.png');
    await writeFile(file, Buffer.from('the same bytes'));
    const { api, keys } = uploadingApi();
    const first = await backgroundImageUrl(file, api, false);
    await backgroundImageUrl(file, api, false);
    expect(first).toMatch(/^upload:\/\/upl_/);
    // The same bytes, the same key: the service answers the same upload again.
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(await backgroundImageUrl('https://cdn.example.com/b.jpg', api, false)).toBe('https://cdn.example.com/b.jpg');
    expect(await backgroundImageUrl(file, api, true)).toBe(file);
    expect(keys).toHaveLength(2);
    await expect(backgroundImageUrl(join(folder, 'missing.png'), api, false)).rejects.toThrow(UsageError);
  });

  it('names the segmentation model, and prices by it where the catalog lists it', () => {
    const cutout = removeBackgroundRequest({ segmentationModel: 'birefnet' });
    expect(cutout.options).toEqual({ segmentation_model: 'birefnet' });
    expect(cutout.price).toEqual({
      kind: 'tool',
      toolId: 'remove_background',
      option: { field: 'segmentation_model', value: 'birefnet' },
    });
    const edit = editRequest({ background: 'white', segmentationModel: 'birefnet' });
    expect(edit.options).toEqual({ operations: { background: { type: 'white' } }, segmentation_model: 'birefnet' });
    expect(edit.price).toEqual({
      kind: 'tool',
      toolId: 'image_editing',
      option: { field: 'segmentation_model', value: 'birefnet' },
    });
    expect(removeBackgroundRequest({}).price).toEqual({ kind: 'tool', toolId: 'remove_background' });
  });
});
