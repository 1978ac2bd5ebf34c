/** One sample line of the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a scrape (comments and blank lines skipped). */
export function parseSamples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = SAMPLE_LINE.exec(line);
    if (!match || line.startsWith('#')) return [];
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(LABEL_PAIR)].map(([, name, value]) => [name, value]),
    );
    return [{ name: match[1], labels, value: Number(match[3]) }];
  });
}

const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([name, value]) => a[name] === value);

/** The value of the series with exactly these labels, 0 when the scrape does not have it (never observed). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.find((sample) => sample.name === name && sameLabels(sample.labels, labels))?.value ?? 0;
}

/** The sum over every series of a name whose labels include these. */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Every sample name in a scrape: what a PromQL expression may select. */
export const seriesNames = (samples: Sample[]) => new Set(samples.map((sample) => sample.name));

/** PromQL words that are not metric names. */
const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression selects: what is left once strings, label matchers,
 * ranges, grouping clauses, function calls and keywords are taken out.
 */
export function metricNamesIn(expression: string): string[] {
  const bare = expression
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ');
  // A word that starts after a letter, digit, dot or `$` is part of a number or a Grafana variable.
  const names = [...bare.matchAll(/(?<![\w.$:])[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .filter(
      (match) =>
        !bare
          .slice(match.index + match[0].length)
          .trimStart()
          .startsWith('('),
    )
    .map((match) => match[0])
    .filter((word) => !PROMQL_KEYWORDS.has(word.toLowerCase()));
  return [...new Set(names)];
}
