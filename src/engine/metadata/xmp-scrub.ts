import { SaxesParser, type SaxesTagPlain, type XMLDecl } from 'saxes';

/**
 * Properties taken out of an XMP packet before a result carries it, by namespace: the GPS
 * position and the camera's and owner's identifiers (which EXIF never carries either), and what
 * described the source's pixels but not the result's (orientation, whose turn is already applied;
 * size and resolution; a thumbnail of the unedited photo). Everything else, rights (dc:rights)
 * and credits included, stays as written.
 */
const REMOVED: ReadonlyMap<string, (name: string) => boolean> = new Map([
  [
    'http://ns.adobe.com/exif/1.0/',
    (name: string) => name.startsWith('GPS') || name === 'PixelXDimension' || name === 'PixelYDimension',
  ],
  [
    'http://ns.adobe.com/tiff/1.0/',
    named('Orientation', 'ImageWidth', 'ImageLength', 'XResolution', 'YResolution', 'ResolutionUnit'),
  ],
  ['http://ns.adobe.com/xap/1.0/', named('Thumbnails')],
  ['http://ns.adobe.com/exif/1.0/aux/', named('SerialNumber', 'LensSerialNumber', 'OwnerName')],
  ['http://cipa.jp/exif/1.0/', named('BodySerialNumber', 'LensSerialNumber', 'CameraOwnerName')],
]);

function named(...names: string[]): (name: string) => boolean {
  const set = new Set(names);
  return (name) => set.has(name);
}

/** Whether the property `local` of namespace `uri` (as the packet's own bindings resolve it) is taken out. */
const isRemoved = (uri: string, local: string) => REMOVED.get(uri)?.(local) ?? false;

/**
 * Elements open at once, at most. A camera's or an editor's packet nests about ten deep (a
 * structure in a list in a property); past this, the packet is not one a photo was given, and
 * refusing it keeps the parser's stack small whatever the input.
 */
export const XMP_MAX_DEPTH = 100;

/** What scrubbing a packet gave: the packet to carry, or why none is carried. */
export type XmpScrub = { xmp: string } | { dropped: string };

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };
/** In an attribute, white space other than a space is escaped too: a parser would turn it into spaces. */
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  '\n': '&#xA;',
  '\t': '&#x9;',
};
const escapeText = (text: string) => text.replace(/[&<>\r]/g, (char) => TEXT_ESCAPES[char]);
const escapeAttribute = (value: string) => value.replace(/[&<>"\r\n\t]/g, (char) => ATTRIBUTE_ESCAPES[char]);

function declaration({ version, encoding, standalone }: XMLDecl): string {
  const parts = [`version="${version ?? '1.0'}"`];
  if (encoding) parts.push(`encoding="${encoding}"`);
  if (standalone) parts.push(`standalone="${standalone}"`);
  return `<?xml ${parts.join(' ')}?>`;
}

/**
 * The packet without the REMOVED properties, in each form RDF/XML writes a property (an attribute
 * of its description, an empty element, or an element with its value, nested structures
 * included), under whatever prefix the packet binds to their namespace.
 *
 * Read by an XML parser (saxes: strict, namespace-aware, streaming), never by patterns over the
 * text, and written back from its events as they arrive: time and memory are linear in the
 * packet's length, however it is nested, and nothing is recursive. Whatever the parser refuses
 * (not XML, truncated, an unbound prefix, an undefined entity, a document type declaration,
 * which XMP forbids and which is how entity expansion would be asked for) drops the packet whole:
 * a packet half understood could keep what should have been removed.
 */
export function scrubbedXmp(packet: string): XmpScrub {
  const out: string[] = [];
  const namespaces = new NamespaceScopes();
  /** Depth inside a removed property's element: while above zero, nothing is written or resolved. */
  let skipping = 0;
  const parser = new SaxesParser<{ xmlns: false; position: false }>({ xmlns: false, position: false });
  const write = (text: string) => {
    if (skipping === 0) out.push(text);
  };
  parser.on('xmldecl', (decl) => write(declaration(decl)));
  parser.on('processinginstruction', ({ target, body }) => write(body ? `<?${target} ${body}?>` : `<?${target}?>`));
  parser.on('doctype', () => {
    throw new Error('it has a document type declaration, which XMP does not allow');
  });
  parser.on('comment', (comment) => write(`<!--${comment}-->`));
  parser.on('cdata', (cdata) => write(`<![CDATA[${cdata}]]>`));
  parser.on('text', (text) => write(escapeText(text)));
  let depth = 0;
  parser.on('opentag', (tag) => {
    if (++depth > XMP_MAX_DEPTH) throw new Error(`it nests elements more than ${XMP_MAX_DEPTH} deep`);
    if (skipping > 0) {
      skipping++;
      return;
    }
    namespaces.enter(tag);
    if (isRemoved(...namespaces.ofElement(tag.name))) {
      skipping = 1;
      return;
    }
    out.push(startTag(tag, namespaces));
  });
  parser.on('closetag', (tag) => {
    depth--;
    if (skipping > 1) {
      skipping--;
      return;
    }
    if (skipping === 0 && !tag.isSelfClosing) out.push(`</${tag.name}>`);
    skipping = 0;
    namespaces.leave();
  });
  try {
    parser.write(packet).close();
  } catch (error) {
    return { dropped: `the XMP packet is not read: ${(error as Error).message}` };
  }
  return { xmp: out.join('').trim() };
}

/** The start tag as written, without the REMOVED properties among its attributes. */
function startTag(tag: SaxesTagPlain, namespaces: NamespaceScopes): string {
  const attributes = Object.entries(tag.attributes)
    .filter(([name]) => !isRemoved(...namespaces.ofAttribute(name)))
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`);
  return `<${tag.name}${attributes.join('')}${tag.isSelfClosing ? '/>' : '>'}`;
}

const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/**
 * The namespace bindings in force, kept by this scrubber rather than by saxes: saxes looks a
 * prefix up through every open element, which costs the depth at each element and makes a
 * deeply nested packet quadratic (20,000 levels took 1.5 s); a stack per prefix answers at once.
 */
class NamespaceScopes {
  private readonly bindings = new Map<string, string[]>([['xml', [XML_NAMESPACE]]]);
  /** The prefixes each open element declared, innermost last. */
  private readonly declared: string[][] = [];

  enter(tag: SaxesTagPlain): void {
    const prefixes: string[] = [];
    for (const [name, uri] of Object.entries(tag.attributes)) {
      const prefix = name === 'xmlns' ? '' : name.startsWith('xmlns:') ? name.slice('xmlns:'.length) : null;
      if (prefix === null) continue;
      const stack = this.bindings.get(prefix) ?? [];
      stack.push(uri);
      this.bindings.set(prefix, stack);
      prefixes.push(prefix);
    }
    this.declared.push(prefixes);
  }

  leave(): void {
    for (const prefix of this.declared.pop() ?? []) this.bindings.get(prefix)?.pop();
  }

  /** An element's namespace and local name: unprefixed, it is in the default namespace. */
  ofElement(name: string): [uri: string, local: string] {
    return this.resolved(name, '');
  }

  /** An attribute's namespace and local name: unprefixed, it is in none (the declarations themselves included). */
  ofAttribute(name: string): [uri: string, local: string] {
    if (name === 'xmlns' || name.startsWith('xmlns:')) return ['', name];
    return this.resolved(name, null);
  }

  private resolved(name: string, unprefixed: '' | null): [uri: string, local: string] {
    const colon = name.indexOf(':');
    const prefix = colon < 0 ? unprefixed : name.slice(0, colon);
    const local = name.slice(colon + 1);
    if (prefix === null) return ['', local];
    const uri = this.bindings.get(prefix)?.at(-1);
    if (uri === undefined && prefix !== '') throw new Error(`the prefix "${prefix}" is bound to no namespace`);
    return [uri ?? '', local];
  }
}
