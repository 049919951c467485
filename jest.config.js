process.env.TZ = 'UTC';
/** Unit specs live beside the code (src/**), end-to-end specs in test/, medium specs (services and repositories on a real database, no HTTP) in test/medium/. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec|medium-spec)\\.ts$',
  transform: {
    '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 30000,
  // One private LAN for the run, made before any suite starts (test/support/test-lan.ts).
  globalSetup: '<rootDir>/test/support/lan-setup.ts',
  globalTeardown: '<rootDir>/test/support/lan-teardown.ts',
  maxWorkers: 2,
};
