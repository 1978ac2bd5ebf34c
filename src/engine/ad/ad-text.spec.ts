import { cleanText, escapeMarkup, fitText, renderText, type TextStyle } from './ad-text';

const BOLD: TextStyle = { weight: 700, tracking: 0, colour: '#000000', align: 'left' };
const SENTENCE = 'Ultra-light trail running shoes built for all mountain paths';

describe('cleanText', () => {
  it('makes one line of visible text, keeping no-break spaces', () => {
    expect(cleanText(' Fresh\n\tdrop\u0007  now\u00a0!\r\n')).toBe('Fresh drop now\u00a0!');
    expect(cleanText('\u200b \ufe0f\u3164')).toBe('');
  });
});

describe('escapeMarkup', () => {
  it('turns every markup character into a character reference', () => {
    expect(escapeMarkup(`<b>&amp; "x" 'y'</b>`)).toBe('&#60;b&#62;&#38;amp; &#34;x&#34; &#39;y&#39;&#60;/b&#62;');
  });
});

describe('renderText', () => {
  it("sets text in the project's Inter, not a host font", async () => {
    // Inter Bold's advance widths put this word at 406 px at 48 px; DejaVu Sans Bold, the host's fallback, is far
    // wider.
    const set = await renderText('Hamburgefonstiv', BOLD, 48, 2000, 'word');
    expect(set.width).toBeGreaterThanOrEqual(402);
    expect(set.width).toBeLessThanOrEqual(410);
  });

  it('draws hostile markup literally', async () => {
    const hostile = await renderText('<b>&amp; "x"</b>', BOLD, 48, 2000, 'word');
    const interpreted = await renderText('& "x"', BOLD, 48, 2000, 'word');
    // Interpreted, the tags would vanish and the entity shrink to one character.
    expect(hostile.width).toBeGreaterThan(2.5 * interpreted.width);
  });

  it('draws a character Inter lacks as a box, never borrowing a host font’s glyph', async () => {
    // The host's DejaVu has a chess knight and a volume integral, glyphs of different shapes; Inter has neither,
    // so both become Pango's box holding the code point in hex, the same size for any four-digit code point.
    const knight = await renderText('\u265e', BOLD, 48, 500, 'word');
    const integral = await renderText('\u2230', BOLD, 48, 500, 'word');
    expect([knight.width, knight.height]).toEqual([integral.width, integral.height]);
    expect(knight.rgba.equals(integral.rgba)).toBe(false);
  });
});

describe('fitText', () => {
  it('keeps the largest size when the text fits', async () => {
    const set = await fitText('Hi', BOLD, { width: 300, height: 300 }, 80);
    expect(set.fontSize).toBe(80);
  });

  it('sets a sentence smaller, words whole, until its ink fits the box', async () => {
    const box = { width: 300, height: 120 };
    const set = await fitText(SENTENCE, BOLD, box, 80);
    expect(set.wrap).toBe('word');
    expect(set.width).toBeLessThanOrEqual(box.width);
    expect(set.height).toBeLessThanOrEqual(box.height);
    // Close to the largest size that fits: a few points more would not.
    const larger = await renderText(SENTENCE, BOLD, set.fontSize + 3, box.width, 'word');
    expect(larger.width > box.width || larger.height > box.height).toBe(true);
  });

  it('breaks a word too long for the box rather than shrinking it to nothing', async () => {
    const box = { width: 400, height: 200 };
    const set = await fitText('W'.repeat(60), BOLD, box, 80);
    expect(set.wrap).toBe('word-char');
    expect(set.fontSize).toBeGreaterThanOrEqual(24);
    expect(set.width).toBeLessThanOrEqual(box.width);
    expect(set.height).toBeLessThanOrEqual(box.height);
  });

  it('refuses a box no readable text fits', async () => {
    await expect(fitText(SENTENCE, BOLD, { width: 40, height: 10 }, 40)).rejects.toThrow('does not fit');
  });
});
