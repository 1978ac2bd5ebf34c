/**
 * The Node.js releases the service runs on: 24 LTS, which it is built, tested and shipped with,
 * and 22 LTS. Imported first by the entry point, before any other module, so an older Node says
 * what to do in one line rather than failing somewhere inside a dependency.
 */

/**
 * The oldest release of each supported line, and any later major: what every production
 * dependency's `engines.node` accepts (TypeORM needs 22.13 or 24.11). `engines.node` in
 * package.json says the same; test/lint/node-release.test.mjs checks both against the lockfile.
 */
export const OLDEST_SUPPORTED: ReadonlyArray<{ major: number; minor: number }> = [
  { major: 22, minor: 13 },
  { major: 24, minor: 11 },
];

const newest = OLDEST_SUPPORTED[OLDEST_SUPPORTED.length - 1];
const named = ({ major, minor }: { major: number; minor: number }) => `${major}.${minor}`;

/** The one line an unsupported `version` (`process.versions.node`) is refused with, or null when it is supported. */
export function unsupportedNodeMessage(version: string): string | null {
  const [major, minor] = version.split('.').map(Number);
  const supported =
    major > newest.major || OLDEST_SUPPORTED.some((oldest) => oldest.major === major && minor >= oldest.minor);
  if (supported) return null;
  return (
    `The Image Job Service needs Node.js ${named(newest)} or later (or ${named(OLDEST_SUPPORTED[0])} or later of ` +
    `${OLDEST_SUPPORTED[0].major}); this is ${version}. Start it with \`npm start\`, which runs on the Node.js 24 ` +
    'that `npm ci` installs for the project, or install Node.js 24 (`nvm install 24`, or https://nodejs.org).'
  );
}

const refusal = unsupportedNodeMessage(process.versions.node);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
