/**
 * Properties taken out of an XMP packet before a result carries it, by namespace: the GPS
 * position and the camera's and owner's identifiers (which EXIF never carries either), and what
 * described the source's pixels but not the result's (orientation, whose turn is already applied;
 * size and resolution; a thumbnail of the unedited photo). Everything else, rights (dc:rights)
 * and credits included, stays as written.
 */
const REMOVED: ReadonlyArray<{ namespace: string; names: string }> = [
  { namespace: 'http://ns.adobe.com/exif/1.0/', names: 'GPS[A-Za-z0-9]*|PixelXDimension|PixelYDimension' },
  {
    namespace: 'http://ns.adobe.com/tiff/1.0/',
    names: 'Orientation|ImageWidth|ImageLength|XResolution|YResolution|ResolutionUnit',
  },
  { namespace: 'http://ns.adobe.com/xap/1.0/', names: 'Thumbnails' },
  { namespace: 'http://ns.adobe.com/exif/1.0/aux/', names: 'SerialNumber|LensSerialNumber|OwnerName' },
  { namespace: 'http://cipa.jp/exif/1.0/', names: 'BodySerialNumber|LensSerialNumber|CameraOwnerName' },
];

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The prefixes a packet binds to `namespace` (a packet chooses its own, `exif:` being only the custom). */
function prefixesOf(xmp: string, namespace: string): string[] {
  const binding = new RegExp(`xmlns:([A-Za-z_][\\w.-]*)\\s*=\\s*["']${escaped(namespace)}["']`, 'g');
  return [...new Set(Array.from(xmp.matchAll(binding), (match) => match[1]))];
}

/**
 * The packet without the REMOVED properties, in each form RDF/XML writes a property: an
 * attribute of its description, an empty element, or an element with its value (nested
 * structures included) inside.
 */
export function scrubbedXmp(xmp: string): string {
  let packet = xmp;
  for (const { namespace, names } of REMOVED) {
    for (const prefix of prefixesOf(xmp, namespace)) {
      const name = `${escaped(prefix)}:(?:${names})`;
      packet = packet
        .replace(new RegExp(`\\s+${name}\\s*=\\s*(?:"[^"]*"|'[^']*')`, 'g'), '')
        .replace(new RegExp(`<${name}(?=[\\s/])[^>]*/>`, 'g'), '')
        .replace(new RegExp(`<(${name})(?=[\\s>])[^>]*>[\\s\\S]*?</\\1\\s*>`, 'g'), '');
    }
  }
  return packet;
}
