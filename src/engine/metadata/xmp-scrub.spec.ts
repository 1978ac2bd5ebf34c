import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { scrubbedXmp, XMP_MAX_DEPTH, type XmpScrub } from './xmp-scrub';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const EXIF = 'http://ns.adobe.com/exif/1.0/';
const TIFF = 'http://ns.adobe.com/tiff/1.0/';
const XMP = 'http://ns.adobe.com/xap/1.0/';
const AUX = 'http://ns.adobe.com/exif/1.0/aux/';
const EXIF_EX = 'http://cipa.jp/exif/1.0/';
const DC = 'http://purl.org/dc/elements/1.1/';
const OTHER = 'urn:example:not-a-photo-namespace';

/** A packet whose description declares `namespaces` and holds `attributes` and `body`. */
const packet = (namespaces: string, attributes: string, body: string) =>
  `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>` +
  `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${RDF}">` +
  `<rdf:Description ${['rdf:about=""', namespaces, attributes].filter(Boolean).join(' ')}>${body}</rdf:Description>` +
  `</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;

const NAMESPACES =
  `xmlns:dc="${DC}" xmlns:exif="${EXIF}" xmlns:tiff="${TIFF}" xmlns:xmp="${XMP}" xmlns:aux="${AUX}" ` +
  'xmlns:xmpGImg="http://ns.adobe.com/xap/1.0/g/img/"';
const RIGHTS = '<dc:rights><rdf:Alt><rdf:li xml:lang="x-default">© Acme Photo (2024)</rdf:li></rdf:Alt></dc:rights>';

/** The packet `scrub` carries; a dropped packet fails the test with its reason. */
function kept(scrub: XmpScrub): string {
  if ('dropped' in scrub) throw new Error(scrub.dropped);
  return scrub.xmp;
}

const dropped = (scrub: XmpScrub) => ('dropped' in scrub ? scrub.dropped : null);

describe(scrubbedXmp.name, () => {
  it('removes location, orientation, size, serial numbers and thumbnails written as attributes', () => {
    const attributes =
      'tiff:Orientation="6" tiff:ImageWidth="4000" exif:GPSLatitude="48,51.5N" ' +
      'exif:GPSLongitude=\'2,17.6E\' aux:SerialNumber="0123" exif:ExposureTime="1/125" xmp:Rating="4"';
    expect(kept(scrubbedXmp(packet(NAMESPACES, attributes, RIGHTS)))).toBe(
      packet(NAMESPACES, 'exif:ExposureTime="1/125" xmp:Rating="4"', RIGHTS),
    );
  });

  it('removes them written as elements, empty, with a value or with a nested structure', () => {
    const body =
      RIGHTS +
      '<exif:GPSLatitude>48,51.5N</exif:GPSLatitude>' +
      '<exif:GPSAltitude rdf:parseType="Resource"/>' +
      '<tiff:Orientation>6</tiff:Orientation>' +
      '<xmp:Thumbnails><rdf:Alt><rdf:li rdf:parseType="Resource"><xmpGImg:image>/9j/4AAQ</xmpGImg:image>' +
      '</rdf:li></rdf:Alt></xmp:Thumbnails>' +
      '<exif:Flash rdf:parseType="Resource"><exif:Fired>False</exif:Fired></exif:Flash>';
    expect(kept(scrubbedXmp(packet(NAMESPACES, '', body)))).toBe(
      packet(
        NAMESPACES,
        '',
        `${RIGHTS}<exif:Flash rdf:parseType="Resource"><exif:Fired>False</exif:Fired></exif:Flash>`,
      ),
    );
  });

  it('follows the prefix a packet binds to a namespace, not the customary one', () => {
    const namespaces = `xmlns:e="${EXIF}" xmlns:exif="${OTHER}"`;
    const body = '<e:GPSLatitude>48,51.5N</e:GPSLatitude><exif:GPSLatitude>kept</exif:GPSLatitude>';
    expect(kept(scrubbedXmp(packet(namespaces, 'e:GPSLongitude="2,17.6E"', body)))).toBe(
      packet(namespaces, '', '<exif:GPSLatitude>kept</exif:GPSLatitude>'),
    );
  });

  it('follows a default namespace and a prefix bound again further in', () => {
    const body =
      `<GPSLatitude xmlns="${EXIF}">48,51.5N</GPSLatitude>` +
      `<p:Orientation xmlns:p="${OTHER}"><p:Orientation xmlns:p="${TIFF}">6</p:Orientation></p:Orientation>`;
    expect(kept(scrubbedXmp(packet('', '', body)))).toBe(
      packet('', '', `<p:Orientation xmlns:p="${OTHER}"></p:Orientation>`),
    );
  });

  it('leaves a packet with nothing to remove as it is, escapes included', () => {
    const untouched = packet(NAMESPACES, 'xmp:CreatorTool="Camera &amp; &quot;Co&quot;" xmp:Label="a&#xA;b"', RIGHTS);
    expect(kept(scrubbedXmp(untouched))).toBe(untouched);
    const withMarkup = packet(NAMESPACES, '', '<dc:title>1 &lt; 2 &amp; <![CDATA[<b>]]><!-- note --></dc:title>');
    expect(kept(scrubbedXmp(withMarkup))).toBe(withMarkup);
  });

  it('drops, with the reason, what is not a well-formed XMP packet', () => {
    const head = packet(NAMESPACES, '', RIGHTS);
    expect(dropped(scrubbedXmp('not XML at all'))).toMatch(/not read/);
    expect(dropped(scrubbedXmp(head.slice(0, head.length / 2)))).toMatch(/not read/);
    expect(dropped(scrubbedXmp(packet(NAMESPACES, '', '<exif:GPSLatitude>1')))).toMatch(/not read/);
    expect(dropped(scrubbedXmp(packet('', '', '<undeclared:Thing>1</undeclared:Thing>')))).toMatch(
      /bound to no namespace/,
    );
    expect(
      dropped(scrubbedXmp('<!DOCTYPE x [<!ENTITY a "aaaaaaaa">]><x:xmpmeta xmlns:x="adobe:ns:meta/">&a;</x:xmpmeta>')),
    ).toMatch(/document type declaration/);
    expect(dropped(scrubbedXmp(packet(NAMESPACES, '', '<dc:title>&undefined;</dc:title>')))).toMatch(/not read/);
  });

  it('reads pathological packets in one pass: white space, nesting, open properties, long values', () => {
    const spaces = ' '.repeat(2_000_000);
    expect(kept(scrubbedXmp(packet(NAMESPACES, `${spaces}exif:GPSLatitude="1" xmp:Rating="4"`, '')))).toBe(
      packet(NAMESPACES, 'xmp:Rating="4"', ''),
    );
    const nested = (depth: number) =>
      packet(NAMESPACES, '', `${'<exif:Flash>'.repeat(depth)}1${'</exif:Flash>'.repeat(depth)}`);
    // x:xmpmeta, rdf:RDF and rdf:Description are three levels already.
    expect(kept(scrubbedXmp(nested(XMP_MAX_DEPTH - 3)))).toBe(nested(XMP_MAX_DEPTH - 3));
    expect(dropped(scrubbedXmp(nested(XMP_MAX_DEPTH - 2)))).toMatch(/more than 100 deep/);
    expect(dropped(scrubbedXmp(nested(200_000)))).toMatch(/more than 100 deep/);
    expect(dropped(scrubbedXmp(packet(NAMESPACES, '', '<exif:GPSAltitude>'.repeat(50_000))))).toMatch(/deep/);
    const siblings = '<exif:GPSAltitude>1</exif:GPSAltitude><xmp:Rating>4</xmp:Rating>'.repeat(20_000);
    expect(kept(scrubbedXmp(packet(NAMESPACES, '', siblings)))).toBe(
      packet(NAMESPACES, '', '<xmp:Rating>4</xmp:Rating>'.repeat(20_000)),
    );
    const long = 'x'.repeat(1_000_000);
    expect(kept(scrubbedXmp(packet(NAMESPACES, `exif:GPSVersionID="${long}" dc:source="${long}"`, '')))).toBe(
      packet(NAMESPACES, `dc:source="${long}"`, ''),
    );
  });
});

/** A property as the generator writes it: its namespace and name, its value, and how RDF/XML writes it. */
interface Property {
  namespace: string;
  name: string;
  value: string;
  form: 'attribute' | 'element' | 'empty' | 'structure' | 'list';
  /**
   * How an element names its namespace: the prefix bound on the description, that prefix bound
   * again on the element, the description's prefix of another namespace bound on the element to
   * this one, or the element's own default namespace. An attribute always uses the description's.
   */
  binding: 'description' | 'own' | 'borrowed' | 'default';
}

/** What the service must take out, written here apart from the scrubber's own table. */
const REMOVED_NAMES: Record<string, string[]> = {
  [EXIF]: [
    'GPSLatitude',
    'GPSLongitude',
    'GPSAltitude',
    'GPSTimeStamp',
    'GPSVersionID',
    'PixelXDimension',
    'PixelYDimension',
  ],
  [TIFF]: ['Orientation', 'ImageWidth', 'ImageLength', 'XResolution', 'YResolution', 'ResolutionUnit'],
  [XMP]: ['Thumbnails'],
  [AUX]: ['SerialNumber', 'LensSerialNumber', 'OwnerName'],
  [EXIF_EX]: ['BodySerialNumber', 'LensSerialNumber', 'CameraOwnerName'],
};
const KEPT_NAMES: Record<string, string[]> = {
  [EXIF]: ['ExposureTime', 'FNumber', 'Flash', 'GPXFile', 'DateTimeOriginal'],
  [TIFF]: ['Make', 'Model', 'Artist'],
  [XMP]: ['Rating', 'CreatorTool', 'Label', 'ThumbnailsNote'],
  [AUX]: ['Lens', 'Firmware'],
  [EXIF_EX]: ['LensModel'],
  [DC]: ['rights', 'creator', 'title'],
  // The removed names themselves, in a namespace that is not a photo's.
  [OTHER]: ['Orientation', 'GPSLatitude', 'SerialNumber', 'Thumbnails'],
};
const isRemovedName = (namespace: string, name: string) => REMOVED_NAMES[namespace]?.includes(name) ?? false;

const named = (names: Record<string, string[]>) =>
  fc
    .constantFrom(...Object.entries(names))
    .chain(([namespace, list]) => fc.record({ namespace: fc.constant(namespace), name: fc.constantFrom(...list) }));

const propertyArbitrary: fc.Arbitrary<Property> = fc
  .record({
    id: fc.oneof(named(REMOVED_NAMES), named(KEPT_NAMES)),
    value: fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '&', '<', '"', "'", 'é', '\n'), maxLength: 12 }),
    form: fc.constantFrom('attribute', 'element', 'empty', 'structure', 'list'),
    binding: fc.constantFrom('description', 'own', 'borrowed', 'default'),
  })
  .map(({ id, value, form, binding }) => ({ ...id, value, form, binding }));

/** A prefix for each namespace, different from each other, any that XML allows (not `xml`, `xmlns`, `rdf`, `x`). */
const prefixesArbitrary = fc
  .uniqueArray(fc.stringMatching(/^[a-wyz][a-z0-9_.-]{0,6}$/), { minLength: 6, maxLength: 6 })
  .filter((prefixes) => prefixes.every((prefix) => !/^(xml|rdf$|dc$)/i.test(prefix)));

const escapeXml = (text: string) =>
  text.replace(
    /[&<>"'\n]/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\n': '&#xA;' })[char] ?? char,
  );

/** The packet holding `properties` in the order given, each namespace under its prefix. */
function writePacket(properties: Property[], prefixOf: Map<string, string>): string {
  const prefixes = [...prefixOf.values()];
  /** The element's name and the binding it declares for itself, if any. */
  const element = (property: Property, index: number): [name: string, binding: string] => {
    const prefix = prefixOf.get(property.namespace);
    switch (property.binding) {
      case 'description':
        return [`${prefix}:${property.name}`, ''];
      case 'own':
        return [`${prefix}:${property.name}`, ` xmlns:${prefix}="${property.namespace}"`];
      case 'borrowed': {
        const borrowed = prefixes[index % prefixes.length];
        return [`${borrowed}:${property.name}`, ` xmlns:${borrowed}="${property.namespace}"`];
      }
      case 'default':
        return [property.name, ` xmlns="${property.namespace}"`];
    }
  };
  const described = [...prefixOf]
    .filter(([namespace]) => namespace !== DC)
    .map(([namespace, prefix]) => `xmlns:${prefix}="${namespace}"`)
    .join(' ');
  const attributes: string[] = [];
  const seen = new Set<string>();
  const elements: string[] = [];
  for (const [index, property] of properties.entries()) {
    const [name, own] = element(property, index);
    const value = escapeXml(property.value);
    const attribute = `${prefixOf.get(property.namespace)}:${property.name}`;
    switch (property.form) {
      case 'attribute':
        // An attribute appears once on an element; a repeated one is written as an element instead.
        if (!seen.has(attribute)) {
          seen.add(attribute);
          attributes.push(`${attribute}="${value}"`);
          break;
        }
        elements.push(`<${name}${own}>${value}</${name}>`);
        break;
      case 'element':
        elements.push(`<${name}${own}>${value}</${name}>`);
        break;
      case 'empty':
        elements.push(`<${name}${own} rdf:resource="${value}"/>`);
        break;
      case 'structure':
        elements.push(`<${name}${own} rdf:parseType="Resource"><dc:title>${value}</dc:title></${name}>`);
        break;
      case 'list':
        elements.push(`<${name}${own}><rdf:Seq><rdf:li>${value}</rdf:li></rdf:Seq></${name}>`);
        break;
    }
  }
  return packet(`xmlns:dc="${DC}" ${described}`, attributes.join(' '), elements.join(''));
}

/** Every property a packet states at the description's level: its namespace, name and value, in the order read. */
function statedProperties(xmp: string): Array<{ namespace: string; name: string; value: string }> {
  const stated: Array<{ namespace: string; name: string; value: string }> = [];
  const parser = new SaxesParser({ xmlns: true });
  let depth = 0;
  let current: { namespace: string; name: string; value: string } | null = null;
  parser.on('opentag', (tag) => {
    depth++;
    if (tag.local === 'Description' && tag.uri === RDF) {
      for (const attribute of Object.values(tag.attributes)) {
        if (attribute.uri && attribute.uri !== RDF && attribute.prefix !== 'xmlns') {
          stated.push({ namespace: attribute.uri, name: attribute.local, value: attribute.value });
        }
      }
    } else if (depth === 4) {
      current = { namespace: tag.uri, name: tag.local, value: tag.attributes['rdf:resource']?.value ?? '' };
      stated.push(current);
    }
  });
  parser.on('text', (text) => {
    if (current && depth >= 4) current.value += text;
  });
  parser.on('closetag', () => {
    depth--;
    if (depth < 4) current = null;
  });
  parser.write(xmp).close();
  return stated;
}

describe(`${scrubbedXmp.name}, for any packet`, () => {
  it('leaves none of the removed properties and every other one, with its value, in any order and prefixes', () => {
    fc.assert(
      fc.property(fc.array(propertyArbitrary, { maxLength: 25 }), prefixesArbitrary, (properties, prefixes) => {
        const namespaces = [EXIF, TIFF, XMP, AUX, EXIF_EX, OTHER];
        // dc is always bound as `dc` on the description: the structures' fields use it.
        const prefixOf = new Map([
          [DC, 'dc'],
          ...namespaces.map((namespace, index) => [namespace, prefixes[index]] as const),
        ]);
        const source = writePacket(properties, prefixOf);
        const stated = statedProperties(kept(scrubbedXmp(source)));
        const expected = statedProperties(source).filter(({ namespace, name }) => !isRemovedName(namespace, name));
        expect(stated).toEqual(expected);
        expect(stated.some(({ namespace, name }) => isRemovedName(namespace, name))).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
