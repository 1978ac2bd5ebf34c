import { describe, expect, it } from '@jest/globals';
import { assignStems, outputName, stemOf } from './naming';

describe('output naming', () => {
  it("names a result after its source's base name without the extension", () => {
    expect(stemOf('/photos/shoe.jpg')).toBe('shoe');
    expect(stemOf('/photos/archive.tar.gz')).toBe('archive.tar');
    expect(stemOf('/photos/.hidden')).toBe('.hidden');
    expect(outputName('shoe', 'png')).toBe('shoe.png');
    expect(outputName('shoe', 'jpg')).toBe('shoe.jpg');
  });

  it('gives sources sharing a base name numbered names in path order, whatever order they came in', () => {
    const paths = ['/b/shoe.png', '/a/shoe.jpg', '/c/bag.jpg', '/c/Shoe.webp'];
    const stems = assignStems(paths);
    expect(Object.fromEntries(stems)).toEqual({
      '/a/shoe.jpg': 'shoe',
      '/b/shoe.png': 'shoe-2',
      '/c/Shoe.webp': 'Shoe-3',
      '/c/bag.jpg': 'bag',
    });
    expect(assignStems([...paths].reverse())).toEqual(stems);
  });

  it("never gives a numbered name that another source's own name already has", () => {
    const stems = assignStems(['/a/shoe.jpg', '/b/shoe.jpg', '/c/shoe-2.jpg']);
    expect(stems.get('/c/shoe-2.jpg')).toBe('shoe-2');
    expect(stems.get('/b/shoe.jpg')).toBe('shoe-3');
  });
});
