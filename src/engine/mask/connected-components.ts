/**
 * Connected-component labelling of a binary mask in two raster passes with union-find (no
 * recursion and no queue, so a component as large as the image costs no stack and no extra
 * memory): provisional labels in the first pass, their equivalences merged as they meet, then
 * one pass that renumbers every pixel to its component.
 */

export interface Components {
  /** Per pixel, row-major: 0 outside the mask, else the component's number, 1..count. */
  labels: Int32Array;
  count: number;
}

/**
 * 8-connectivity for a subject's parts (a diagonal touch joins them) and 4-connectivity for the
 * background between them, so that a hole closed only by a diagonal step stays a hole.
 */
export type Connectivity = 4 | 8;

/** Provisional labels the union-find table holds before it first grows. */
const INITIAL_LABELS = 4096;

export function labelComponents(
  inside: Uint8Array,
  width: number,
  height: number,
  connectivity: Connectivity,
): Components {
  const labels = new Int32Array(width * height);
  // A new provisional label needs a pixel with no labelled neighbour above or to its left, so
  // there are at most half the pixels of them (a checkerboard, under 4-connectivity); a mask
  // usually has a few hundred, so the table starts small and doubles as it fills, rather than
  // allocating half the image's size on every call.
  const most = Math.ceil((width * height) / 2) + 2;
  let parent = new Int32Array(Math.min(most, INITIAL_LABELS));
  let next = 1;

  const root = (label: number): number => {
    while (parent[label] !== label) {
      parent[label] = parent[parent[label]];
      label = parent[label];
    }
    return label;
  };
  // The smaller root wins, so a root is never younger than its members.
  const join = (a: number, b: number): number => {
    const ra = root(a);
    const rb = root(b);
    if (ra === rb) return ra;
    if (ra < rb) {
      parent[rb] = ra;
      return ra;
    }
    parent[ra] = rb;
    return rb;
  };
  const meet = (label: number, neighbour: number): number => {
    if (neighbour === 0) return label;
    return label === 0 ? neighbour : join(label, neighbour);
  };

  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (!inside[i]) continue;
      let label = x > 0 ? labels[i - 1] : 0;
      if (y > 0) {
        label = meet(label, labels[i - width]);
        if (connectivity === 8) {
          if (x > 0) label = meet(label, labels[i - width - 1]);
          if (x < width - 1) label = meet(label, labels[i - width + 1]);
        }
      }
      if (label === 0) {
        label = next++;
        if (label === parent.length) {
          const grown = new Int32Array(Math.min(most, parent.length * 2));
          grown.set(parent);
          parent = grown;
        }
        parent[label] = label;
      }
      labels[i] = label;
    }
  }

  // Roots become 1..count in order of first appearance; members follow their root.
  const final = new Int32Array(next);
  let count = 0;
  for (let label = 1; label < next; label++) {
    const r = root(label);
    final[label] = r === label ? ++count : final[r];
  }
  for (let i = 0; i < labels.length; i++) labels[i] = final[labels[i]];
  return { labels, count };
}
