import { button, h } from './dom.js';
import type { SubjectHints, SubjectPoint, SubjectRegion } from './types.js';

const CLICK_SLOP_PX = 4;
const clamp = (value: number) => Math.min(1, Math.max(0, value));
const round = (value: number) => Math.round(value * 10000) / 10000;

export interface HintsEditor {
  element: HTMLElement;
  hints(): SubjectHints | null;
}

/**
 * Subject hints drawn on a photo: a mouse drag draws the region, a click adds a keep point, both
 * as fractions of the picture as displayed (docs/tools.md, "Subject hints"). Marks are placed
 * through the CSSOM, which the console's policy allows, never through style strings.
 */
export function hintsEditor(picture: HTMLImageElement, onChange: () => void): HintsEditor {
  let region: SubjectRegion | null = null;
  const points: SubjectPoint[] = [];
  const box = h('div', { class: 'region', hidden: true });
  const marks = h('div', { class: 'marks' });
  const surface = h('div', { class: 'draw-surface', 'data-role': 'draw-surface' }, picture, box, marks);
  let start: { x: number; y: number; clientX: number; clientY: number } | null = null;

  const at = (event: PointerEvent) => {
    const rect = picture.getBoundingClientRect();
    return { x: clamp((event.clientX - rect.left) / rect.width), y: clamp((event.clientY - rect.top) / rect.height) };
  };
  const placeBox = (left: number, top: number, right: number, bottom: number) => {
    box.hidden = false;
    box.style.left = `${left * 100}%`;
    box.style.top = `${top * 100}%`;
    box.style.width = `${(right - left) * 100}%`;
    box.style.height = `${(bottom - top) * 100}%`;
  };
  const drawPoints = () => {
    marks.replaceChildren(
      ...points.map((point, index) => {
        const mark = h('span', { class: 'point', title: `Keep point ${index + 1}` });
        mark.style.left = `${point.x * 100}%`;
        mark.style.top = `${point.y * 100}%`;
        return mark;
      }),
    );
  };

  surface.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    surface.setPointerCapture(event.pointerId);
    start = { ...at(event), clientX: event.clientX, clientY: event.clientY };
  });
  surface.addEventListener('pointermove', (event) => {
    if (!start) return;
    const here = at(event);
    placeBox(
      Math.min(start.x, here.x),
      Math.min(start.y, here.y),
      Math.max(start.x, here.x),
      Math.max(start.y, here.y),
    );
  });
  surface.addEventListener('pointerup', (event) => {
    if (!start) return;
    const here = at(event);
    const dragged = Math.hypot(event.clientX - start.clientX, event.clientY - start.clientY) > CLICK_SLOP_PX;
    if (dragged) {
      region = {
        left: round(Math.min(start.x, here.x)),
        top: round(Math.min(start.y, here.y)),
        right: round(Math.max(start.x, here.x)),
        bottom: round(Math.max(start.y, here.y)),
      };
      placeBox(region.left, region.top, region.right, region.bottom);
    } else if (points.length < 10) {
      points.push({ x: round(here.x), y: round(here.y) });
      drawPoints();
    }
    start = null;
    onChange();
  });

  // The region by numbers, for the keyboard: percentages of the photo's width and height.
  const edges = (['left', 'top', 'right', 'bottom'] as const).map((edge) => {
    const input = h('input', { type: 'number', min: 0, max: 100, step: 1, 'aria-label': `Region ${edge} (%)` });
    input.placeholder = edge;
    return input;
  });
  const typed = h('button', { type: 'button' }, 'Set region');
  typed.addEventListener('click', () => {
    const [left, top, right, bottom] = edges.map((input) => clamp(Number(input.value) / 100));
    if (!edges.every((input) => input.value !== '') || right <= left || bottom <= top) return;
    region = { left: round(left), top: round(top), right: round(right), bottom: round(bottom) };
    placeBox(region.left, region.top, region.right, region.bottom);
    onChange();
  });

  // Keep points by numbers too, so the keyboard can do everything the mouse can.
  const coordinates = (['x', 'y'] as const).map((axis) => {
    const input = h('input', { type: 'number', min: 0, max: 100, step: 1, 'aria-label': `Keep point ${axis} (%)` });
    input.placeholder = axis;
    return input;
  });
  const addPoint = h('button', { type: 'button' }, 'Add keep point');
  addPoint.addEventListener('click', () => {
    if (!coordinates.every((input) => input.value !== '') || points.length >= 10) return;
    const [x, y] = coordinates.map((input) => clamp(Number(input.value) / 100));
    points.push({ x: round(x), y: round(y) });
    drawPoints();
    onChange();
  });

  const reset = button('Clear hints', () => {
    region = null;
    points.length = 0;
    box.hidden = true;
    drawPoints();
    onChange();
  });

  return {
    element: h(
      'div',
      { class: 'hints-editor' },
      surface,
      h(
        'p',
        { class: 'muted' },
        'Drag to draw the region the product lies in; click to add a keep point on the product (at most 10).',
      ),
      h(
        'details',
        {},
        h('summary', {}, 'Region and keep points by numbers (% of the photo)'),
        h('div', { class: 'inline' }, ...edges, typed),
        h('div', { class: 'inline' }, ...coordinates, addPoint),
      ),
      reset,
    ),
    hints() {
      if (!region && points.length === 0) return null;
      return { ...(region ? { region } : {}), ...(points.length ? { keep_points: [...points] } : {}) };
    },
  };
}
