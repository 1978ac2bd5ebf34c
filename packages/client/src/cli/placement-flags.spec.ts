import { InvalidArgumentError } from 'commander';
import { alignFlag, canvasSize, paddingFlag, scaleFlag } from './placement-flags';
import { editRequest, removeBackgroundRequest, UsageError } from './tool-requests';

describe('placement flags', () => {
  it('reads a canvas size, padding, alignment and scale as the API spells them', () => {
    expect(canvasSize('1200x800')).toEqual({ width: 1200, height: 800 });
    expect(paddingFlag('24')).toBe(24);
    expect(paddingFlag('24px')).toBe(24);
    expect(paddingFlag('5%')).toBe('5%');
    expect(paddingFlag('5%,24,2.5%,0')).toEqual({ top: '5%', right: 24, bottom: '2.5%', left: 0 });
    expect(alignFlag('center,bottom')).toEqual({ horizontal: 'center', vertical: 'bottom' });
    expect(alignFlag('left')).toEqual({ horizontal: 'left' });
    expect(alignFlag('top')).toEqual({ vertical: 'top' });
    expect(alignFlag('center')).toEqual({ horizontal: 'center', vertical: 'center' });
    expect(scaleFlag('fill')).toBe('fill');
    expect(scaleFlag('80%')).toBe('80%');
  });

  it.each([
    [canvasSize, '0x10'],
    [canvasSize, '9000x10'],
    [canvasSize, '100'],
    [paddingFlag, '50%'],
    [paddingFlag, '1,2'],
    [paddingFlag, '2em'],
    [alignFlag, 'middle'],
    [alignFlag, 'top,left'],
    [scaleFlag, '0%'],
    [scaleFlag, '101%'],
    [scaleFlag, 'contain'],
  ] as const)('refuses %p of %s', (parse, value) => {
    expect(() => parse(value)).toThrow(InvalidArgumentError);
  });

  it('sends placement on remove-background and on an edit that cuts the product out', () => {
    const flags = {
      placementSize: { width: 1200, height: 1200 },
      padding: '5%',
      align: { vertical: 'bottom' },
      scale: '90%',
      shadowInBox: true,
    };
    expect(removeBackgroundRequest(flags).options).toEqual({
      placement: {
        width: 1200,
        height: 1200,
        padding: '5%',
        vertical_alignment: 'bottom',
        scale: '90%',
        shadow_in_box: true,
      },
    });
    expect(editRequest({ ...flags, background: 'white' }).options).toEqual({
      operations: {
        placement: {
          width: 1200,
          height: 1200,
          padding: '5%',
          vertical_alignment: 'bottom',
          scale: '90%',
          shadow_in_box: true,
        },
        background: { type: 'white' },
      },
    });
  });

  it('refuses placement with a crop, on an edit without a new background, or with a resize', () => {
    expect(() => removeBackgroundRequest({ scale: 'fit', cropToSubject: true })).toThrow(UsageError);
    expect(() => editRequest({ scale: 'fit' })).toThrow(UsageError);
    expect(() => editRequest({ scale: 'fit', background: 'original', shadow: 'soft' })).toThrow(UsageError);
    expect(() => editRequest({ scale: 'fit', background: 'white', width: 10 })).toThrow(UsageError);
    expect(() => removeBackgroundRequest({ scale: 'fit', background: 'blur' })).toThrow(UsageError);
    expect(() => editRequest({ scale: 'fit', background: 'blur' })).toThrow(UsageError);
  });
});
