/**
 * Elements are built with createElement and textContent only: nothing the API or a user sends is
 * ever parsed as HTML.
 */
type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value == null || value === false) continue;
    if (name === 'style') throw new Error('styles are set through the CSSOM, never from strings');
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child == null || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(element: Element): void {
  element.replaceChildren();
}

export function button(
  label: string,
  onClick: (event: MouseEvent) => void,
  attributes: Attributes = {},
): HTMLButtonElement {
  const element = h('button', { type: 'button', ...attributes }, label);
  element.addEventListener('click', onClick);
  return element;
}

export function link(label: string, href: string, attributes: Attributes = {}): HTMLAnchorElement {
  return h('a', { href, ...attributes }, label);
}

/** A labelled form field; the label's `for` ties it to the control for screen readers. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): HTMLElement {
  if (!control.id) control.id = `field-${Math.random().toString(36).slice(2)}`;
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
}

export function select(options: [value: string, label: string][], selected = ''): HTMLSelectElement {
  const element = h('select');
  for (const [value, label] of options) element.append(h('option', { value, selected: value === selected }, label));
  return element;
}

export function errorBox(message: string): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, message);
}

export function formatDate(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : '–';
}

export function table(headings: string[], rows: Child[][], caption?: string): HTMLTableElement {
  return h(
    'table',
    {},
    caption ? h('caption', {}, caption) : null,
    h('thead', {}, h('tr', {}, ...headings.map((heading) => h('th', { scope: 'col' }, heading)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
  );
}
