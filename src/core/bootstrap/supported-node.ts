/**
 * The Node.js releases the service runs on: 24 (Active LTS), which it is built, tested and shipped
 * with, and 22 (Maintenance LTS). Imported first by the entry point, before any other module, so
 * an older Node says what to do in one line rather than failing somewhere inside a dependency.
 */
export const MINIMUM_NODE_MAJOR = 22;

/** The one line an unsupported `version` (`process.versions.node`) is refused with, or null when it is supported. */
export function unsupportedNodeMessage(version: string): string | null {
  const major = Number(version.split('.')[0]);
  if (major >= MINIMUM_NODE_MAJOR) return null;
  return (
    `The Image Job Service needs Node.js ${MINIMUM_NODE_MAJOR} or later (24 LTS recommended); this is ${version}. ` +
    'Start it with `npm start`, which runs on the Node.js 24 that `npm ci` installs for the project, ' +
    'or install Node.js 24 (`nvm install 24`, or https://nodejs.org).'
  );
}

const refusal = unsupportedNodeMessage(process.versions.node);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
