// ESLint flat config: typescript-eslint's type-checked rules for the TypeScript in src/, test/
// and bench/, the import boundaries that keep the layers apart, and eslint-config-prettier near
// the end so formatting is Prettier's alone (`npm run lint` runs both), with max-len after it.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Which feature module may import which: the one place the modules' layering is written down.
 * Each key is a folder under src/modules; its list names the modules its files (specs and Nest
 * module files included) may import, besides its own files and src/core. The table must stay a
 * DAG, so no two modules import each other, directly or round a longer circle; it is checked
 * below when this file loads. From the bottom up:
 * - the modules of records and limits that need no other: accounts, catalog (tools, prices and
 *   each tool's availability), idempotency, rate-limit;
 * - what builds on one record: auth (keys of an account, limited per IP), credits (the balance
 *   of an account and its ledger), capacity (a tool's capacity group), tools (the catalog's tool
 *   ids and options), webhooks (an account's secrets, events naming a tool);
 * - uploads, which authenticate and limit their callers and take an Idempotency-Key;
 * - live-events (status changes announced to the API's event streams of a key's account);
 * - reviews (a person's review of completed cut-outs, with its events; jobs records re-cuts through it);
 * - the three that compose the rest: admin (the operator's actions), account-activity (what a
 *   key reads of its own account: ledger, usage, webhook deliveries) and jobs (creating,
 *   running and settling jobs, which records their webhook events and announces their changes).
 * A module that needs something from one above it gets it moved down (a type, a token, data) or
 * reaches it through a port the lower module owns and the higher one implements.
 */
export const MODULE_DEPENDENCIES = {
  accounts: [],
  catalog: [],
  idempotency: [],
  'rate-limit': [],
  auth: ['accounts', 'rate-limit'],
  credits: ['accounts', 'idempotency'],
  capacity: ['catalog'],
  tools: ['catalog'],
  webhooks: ['accounts', 'catalog'],
  uploads: ['auth', 'idempotency', 'rate-limit'],
  'live-events': ['auth'],
  reviews: ['auth', 'catalog', 'live-events', 'webhooks'],
  admin: ['accounts', 'auth', 'credits', 'idempotency'],
  'account-activity': ['auth', 'catalog', 'credits', 'rate-limit', 'webhooks'],
  jobs: [
    'accounts',
    'auth',
    'capacity',
    'catalog',
    'credits',
    'idempotency',
    'live-events',
    'rate-limit',
    'reviews',
    'tools',
    'uploads',
    'webhooks',
  ],
};

/** Throws unless every listed dependency is a module of the table and the table has no circle. */
function assertAcyclic(dependencies) {
  const state = new Map();
  const visit = (module, path) => {
    if (state.get(module) === 'done') return;
    if (state.get(module) === 'open')
      throw new Error(`MODULE_DEPENDENCIES has a circle: ${[...path, module].join(' -> ')}`);
    state.set(module, 'open');
    for (const next of dependencies[module]) {
      if (!(next in dependencies)) throw new Error(`MODULE_DEPENDENCIES: ${module} lists ${next}, which is no module`);
      visit(next, [...path, module]);
    }
    state.set(module, 'done');
  };
  for (const module of Object.keys(dependencies)) visit(module, []);
}
assertAcyclic(MODULE_DEPENDENCIES);

/** The tools module's files are classified finer, for the rules between tools; these are all of them. */
const TOOLS_TYPES = ['tools-shared', 'tools-module', 'tools-root', 'tool'];

/**
 * The files of src/engine that run its operations, on the calling thread or on a pool of threads
 * (piscina): the list of operations, the PixelEngine interface and its inline form, the thread's
 * module, the pool, and how buffers cross between threads. The rest of src/engine is pixels.
 */
const ENGINE_RUNNER = [
  'operations',
  'pixel-engine',
  'engine-thread',
  'thread-pool-engine',
  'thread-module',
  'transfer',
  'libvips-settings',
];

/**
 * The layers of src/, from the bottom up: a file imports only its own layer and the layers below
 * it, so each layer can be read, tested and moved with only what is under it.
 * - pixels (src/engine but the runner's files): the pixel types (RawImage, Rgba, the probability
 *   map, alpha masks) and the pure operations on them, written as plain functions;
 * - engine (the runner's files of src/engine, ENGINE_RUNNER): what runs those operations, inline
 *   or in the worker's thread pool; no model, queue or I/O;
 * - core (src/core): configuration, database, Redis, queues, HTTP, storage, outbound requests,
 *   the sharp decode and encode steps, the models' sessions and threads (segmentation,
 *   super-resolution) and the Nest module of the engine's pool;
 * - modules (src/modules): the features, between which MODULE_DEPENDENCIES decides;
 * - app (src/main.ts, src/app.module.ts, src/cli): the entry points.
 * Something a lower layer needs from a higher one is moved down (a type, a pure function) or is
 * handed in by the higher layer, through a port the lower one owns. Each entry lists the element
 * types of importBoundaries' classification (ELEMENTS) that make up the layer.
 */
export const LAYERS = [
  { layer: 'pixels', elements: ['pixels'] },
  { layer: 'engine', elements: ['engine'] },
  { layer: 'core', elements: ['core'] },
  { layer: 'modules', elements: ['module', ...TOOLS_TYPES] },
  { layer: 'app', elements: ['app'] },
];

/**
 * How importBoundaries classifies a file of src/ by its path; the first match wins: the engine's
 * runner before the pixels, shared and the tools' own files before any tool folder.
 */
const ELEMENTS = [
  { type: 'engine', pattern: `src/engine/{${ENGINE_RUNNER.join(',')}}?(.spec).ts`, mode: 'full' },
  { type: 'pixels', pattern: 'src/engine/**', mode: 'full' },
  { type: 'core', pattern: 'src/core/**', mode: 'full' },
  { type: 'tools-shared', pattern: 'src/modules/tools/shared/**', mode: 'full' },
  { type: 'tools-module', pattern: 'src/modules/tools/tools.module.ts', mode: 'full' },
  { type: 'tools-root', pattern: 'src/modules/tools/*.ts', mode: 'full' },
  { type: 'tool', pattern: 'src/modules/tools/*/**', mode: 'full', capture: ['tool'] },
  { type: 'module', pattern: 'src/modules/*/**', mode: 'full', capture: ['module'] },
  { type: 'app', pattern: 'src/**', mode: 'full' },
];

/** Throws unless every element type of ELEMENTS is in exactly one layer. */
function assertLayered(layers) {
  for (const { type } of ELEMENTS) {
    const owners = layers.filter(({ elements }) => elements.includes(type));
    if (owners.length !== 1) throw new Error(`LAYERS: element ${type} is in ${owners.length} layers, not 1`);
  }
}
assertLayered(LAYERS);

/** One policy per layer but the top one: its files import no layer above it. */
function layerPolicies(layers) {
  return layers.slice(0, -1).map(({ layer, elements }, index) => {
    const above = layers.slice(index + 1);
    const below = layers.slice(0, index).map((lower) => lower.layer);
    const may = below.length > 0 ? `only itself and ${below.join(', ')}` : 'nothing from another layer';
    return {
      from: { element: { type: elements } },
      disallow: { to: { element: { type: above.flatMap((higher) => higher.elements) } } },
      message:
        `the ${layer} layer may import ${may}, never ${above.map((higher) => higher.layer).join(', ')} ` +
        '(LAYERS in eslint.config.mjs): move what it needs down',
    };
  });
}

/** The element selector for the files of one module of the table. */
const moduleFiles = (module) =>
  module === 'tools' ? { element: { type: TOOLS_TYPES } } : { element: { type: 'module', captured: { module } } };

/** One policy per module of the table: its files import no module outside its own row. */
function modulePolicies(dependencies) {
  return Object.entries(dependencies).map(([module, allowed]) => {
    const own = [module, ...allowed];
    const others = Object.keys(dependencies).filter((other) => !own.includes(other));
    const may = allowed.length > 0 ? `only ${allowed.join(', ')}` : 'no other module';
    return {
      from: moduleFiles(module),
      disallow: { to: others.map(moduleFiles) },
      message: `${module} may import ${may} (MODULE_DEPENDENCIES in eslint.config.mjs)`,
    };
  });
}

/**
 * The layering, checked on resolved file paths:
 * - a layer of LAYERS imports no layer above it (so nothing under src/engine imports src/core, and
 *   nothing under src/core imports src/modules);
 * - a module imports only the modules its row of MODULE_DEPENDENCIES lists (a file under
 *   src/modules that is in no row, such as a new module's, must be added to the table first);
 * - a tool folder (src/modules/tools/<tool>/) imports only its own files, src/modules/tools/shared,
 *   the files directly in src/modules/tools, src/core and the modules tools may use: never a
 *   sibling tool;
 * - src/modules/tools/shared and the files directly in src/modules/tools import no tool folder
 *   (tools.module.ts, which registers every tool, excepted).
 *
 * eslint-plugin-boundaries rather than the built-in no-restricted-imports: that rule sees only
 * the import string as written, and a relative path's meaning depends on the importing file's
 * depth, so "another tool folder" cannot be said once; boundaries classifies both ends of the
 * import by their resolved paths and captures the module's and the tool's folder names, so one
 * policy covers every module and tool, present and future. Exported so
 * test/lint/import-boundaries.test.mjs checks these rules on a fixture tree.
 *
 * @param {string} rootDir the folder that holds src/
 * @param {Record<string, string[]>} dependencies the modules' allowed dependencies (the fixture test passes its own)
 */
export function importBoundaries(rootDir, dependencies = MODULE_DEPENDENCIES) {
  assertAcyclic(dependencies);
  return {
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': rootDir,
      'boundaries/include': ['src/**/*.ts'],
      // Re-exports and dynamic imports are dependencies too.
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      // Relative imports without an extension, as the code writes them.
      'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } },
      'boundaries/elements': ELEMENTS,
      'boundaries/legacy-warnings': false,
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [
            ...layerPolicies(LAYERS),
            {
              from: { element: { type: 'module', captured: { module: `!{${Object.keys(dependencies).join(',')}}` } } },
              disallow: {
                to: [
                  { element: { type: TOOLS_TYPES } },
                  { element: { type: 'module', captured: { module: '!{{ from.element.captured.module }}' } } },
                ],
              },
              message:
                'a module not in MODULE_DEPENDENCIES (eslint.config.mjs) may import no other module: add its row',
            },
            ...modulePolicies(dependencies),
            {
              from: { element: { type: 'tool' } },
              disallow: { to: { element: { type: 'tools-module' } } },
              message: 'a tool must not import tools.module.ts, which registers every tool',
            },
            {
              from: { element: { type: 'tool' } },
              disallow: {
                to: { element: { type: 'tool', captured: { tool: '!{{ from.element.captured.tool }}' } } },
              },
              message: 'a tool must not import another tool: move what both need into src/modules/tools/shared',
            },
            {
              from: { element: { type: ['tools-shared', 'tools-root'] } },
              disallow: { to: { element: { type: ['tool', 'tools-module'] } } },
              message: 'tools/shared and tools/*.ts sit below every tool and must not import a tool',
            },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  {
    // The client's generated types are openapi-typescript's output, compared byte for byte with it.
    ignores: [
      'dist/',
      'coverage/',
      'data/',
      'node_modules/',
      'packages/client/dist/',
      'packages/client/src/generated/',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore marks a binding kept on purpose, such as a property taken out of an
      // object by destructuring so the rest can be passed on.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // `== null` covers null and undefined at once; everything else compares strictly.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Error codes map to statuses and tools to runners through switches that must stay whole
      // when a member is added (style guide, habit 7).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Nest modules are classes that only carry a decorator; plain static holders are not wanted.
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: {
      // Logs go through the pino logger, with the request id beside them.
      'no-console': 'error',
      // Configuration is read once, at the entry point, into one typed object (style guide,
      // habit 6); only the entry points, the configuration loader and start-up code read the
      // environment.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'read settings from the validated configuration object' },
      ],
    },
  },
  {
    files: [
      'src/main.ts',
      'src/cli/**/*.ts',
      'src/core/config/**/*.ts',
      'src/core/bootstrap/**/*.ts',
      'src/core/database/data-source.ts',
    ],
    rules: { 'no-restricted-properties': 'off', 'no-console': 'off' },
  },
  {
    // A tool reads its options typed, as the create DTOs produced them (issue 19, item 2), and reaches
    // pixels only through the image engine (src/engine) and src/core/image, never sharp itself.
    files: ['src/modules/tools/**/*.ts'],
    ignores: ['src/modules/tools/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'sharp',
              message: 'a tool reaches pixels through src/engine or src/core/image: move its sharp calls there',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSAsExpression > TSAsExpression > TSUnknownKeyword',
          message: 'no `as unknown as` in a tool: take the options typed from the request',
        },
      ],
    },
  },
  {
    // The image engine runs in worker threads: plain functions over pixels, with no framework,
    // database, queue or network (the ad renderer in src/engine/ad included). That it imports
    // neither src/core nor src/modules is LAYERS' rule.
    files: ['src/engine/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@nestjs/*', 'typeorm', 'pg', 'ioredis', 'bullmq', 'node:http', 'node:https', 'node:net'],
              message: 'the image engine is plain functions over pixels: no framework, database, queue or network',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'packages/client/src/**/*.spec.ts', 'packages/client/test/**/*.ts'],
    rules: {
      // Response bodies (supertest's `body`, JSON.parse) are `any` by nature; the assertions
      // check their shape, so these rules would only ask for casts.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fakes implement async interfaces without awaiting anything.
      '@typescript-eslint/require-await': 'off',
      // `expect(fake.method).toHaveBeenCalled()` passes methods unbound on purpose.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  importBoundaries(import.meta.dirname),
  {
    // CommonJS configuration and the jest environment: Node's module globals, no type information.
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly' },
    },
  },
  prettier,
  {
    // Prettier wraps code but not strings, template literals or comments, so the line length is checked here too.
    rules: { 'max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }] },
  },
);
