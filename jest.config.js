const { availableParallelism } = require('node:os');

/** Three kinds of test, each selectable with `--selectProjects unit|integration|e2e`. */
const tsJest = { '^.+\\.ts$': ['<rootDir>/test/support/module-globals-transformer.js', { tsconfig: 'tsconfig.json' }] };
/** Node's environment with the main realm's Float32Array, so onnxruntime works under jest (see the file). */
const common = {
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: tsJest,
  testEnvironment: '<rootDir>/test/support/main-realm-environment.js',
  setupFiles: ['<rootDir>/test/support/libvips-settings-setup.ts'],
};

module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  projects: [
    {
      ...common,
      displayName: 'unit',
      rootDir: '.',
      // Test support has specs of its own where it measures (colour difference).
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/test/support/**/*.spec.ts',
        '<rootDir>/packages/client/src/**/*.spec.ts',
      ],
    },
    {
      ...common,
      displayName: 'integration',
      rootDir: '.',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
    },
    { ...common, displayName: 'e2e', rootDir: '.', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
  ],
  testTimeout: 60000,
  // Files run in parallel (each has its own schema and key prefix): one worker per core, and at
  // least two, since much of an integration test's time is spent waiting on the service.
  maxWorkers: Math.max(2, availableParallelism()),
};
