import { scrubbedXmp } from './xmp-packet';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** A packet whose description declares `namespaces` and holds `attributes` and `body`. */
const packet = (namespaces: string, attributes: string, body: string) =>
  `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>` +
  `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${RDF}">` +
  `<rdf:Description ${['rdf:about=""', namespaces, attributes].filter(Boolean).join(' ')}>${body}</rdf:Description>` +
  `</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;

const NAMESPACES =
  'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:exif="http://ns.adobe.com/exif/1.0/" ' +
  'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" ' +
  'xmlns:aux="http://ns.adobe.com/exif/1.0/aux/"';
const RIGHTS = '<dc:rights><rdf:Alt><rdf:li xml:lang="x-default">© Acme Photo (2024)</rdf:li></rdf:Alt></dc:rights>';

describe(scrubbedXmp.name, () => {
  it('removes location, orientation, size, serial numbers and thumbnails written as attributes', () => {
    const attributes =
      'tiff:Orientation="6" tiff:ImageWidth="4000" exif:GPSLatitude="48,51.5N" ' +
      'exif:GPSLongitude=\'2,17.6E\' aux:SerialNumber="0123" exif:ExposureTime="1/125" xmp:Rating="4"';
    expect(scrubbedXmp(packet(NAMESPACES, attributes, RIGHTS))).toBe(
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
    expect(scrubbedXmp(packet(NAMESPACES, '', body))).toBe(
      packet(
        NAMESPACES,
        '',
        `${RIGHTS}<exif:Flash rdf:parseType="Resource"><exif:Fired>False</exif:Fired></exif:Flash>`,
      ),
    );
  });

  it('follows the prefix a packet binds to a namespace, not the customary one', () => {
    const namespaces = 'xmlns:e="http://ns.adobe.com/exif/1.0/" xmlns:exif="urn:example:not-exif"';
    const body = '<e:GPSLatitude>48,51.5N</e:GPSLatitude><exif:GPSLatitude>kept</exif:GPSLatitude>';
    expect(scrubbedXmp(packet(namespaces, 'e:GPSLongitude="2,17.6E"', body))).toBe(
      packet(namespaces, '', '<exif:GPSLatitude>kept</exif:GPSLatitude>'),
    );
  });

  it('leaves a packet with nothing to remove as it is', () => {
    const kept = packet(NAMESPACES, 'xmp:CreatorTool="Camera"', RIGHTS);
    expect(scrubbedXmp(kept)).toBe(kept);
  });
});
