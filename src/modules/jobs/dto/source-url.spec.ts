import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { InputImageDto } from './shared.dto';
import { ProductImageDto } from './product-photo-job.dto';

const problemsOf = async (image_url: unknown) =>
  (await validate(plainToInstance(InputImageDto, { image_url }))).flatMap((error) =>
    Object.values(error.constraints ?? {}),
  );

describe('source image URLs', () => {
  it.each([
    'https://cdn.example.com/products/1.jpg',
    'http://images.example.com/a.png?size=large',
    'upload://upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
  ])('accepts %s', async (url) => {
    expect(await problemsOf(url)).toEqual([]);
  });

  it.each([
    ['ftp://example.com/a.jpg', 'image_url must be an http or https URL, or an upload:// URL from POST /uploads'],
    ['not a url', 'image_url must be an http or https URL, or an upload:// URL from POST /uploads'],
    [
      'upload://upl_short',
      'image_url must be upload://upl_ followed by 24 letters or digits, as POST /uploads returns it',
    ],
    [
      'upload://upl_4fQ9zK2mX7bN1cV8dR5tY3wA/../x',
      'image_url must be upload://upl_ followed by 24 letters or digits, as POST /uploads returns it',
    ],
  ])('refuses %s', async (url, message) => {
    expect(await problemsOf(url)).toEqual([message]);
  });

  it('takes uploads in product photo jobs too', async () => {
    const product = plainToInstance(ProductImageDto, {
      source_url: 'upload://upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
      external_id: 'sku-1',
    });
    expect(await validate(product)).toEqual([]);
  });
});
