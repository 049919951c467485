/**
 * The floors of the house as import rules (docs/architecture.md "Layers"), checked by `npm test`
 * before anything else runs (`npm run lint:imports`). A violation names its rule, the importing file
 * and the imported one. Type-only imports count: a type that runs back up is an upward import.
 *
 *   app        src/app.module.ts, src/main.ts, src/bootstrap/, src/cli/  (composes; nothing imports it)
 *   features   every other folder of src/ (one Nest module each), and the libraries with no Nest in
 *              them (src/inspection/, src/relay-client/); between features the folders form no circle
 *   shared     src/common/, config/, logging/, database/, storage/, metrics/, cluster/ (import no feature)
 *   platform   src/platform/, the engine room (imports nothing of the project)
 */
const SHARED = '^src/(common|config|logging|database|storage|metrics|cluster)/';
const APP = '^src/(app\\.module\\.ts$|main\\.ts$|bootstrap/|cli/)';
const LIBRARIES = '^src/(inspection|relay-client)/';
/** What makes a file a part of the Nest relay rather than a library. */
const NEST_PACKAGES = '^node_modules/(@nestjs/[^/]+|typeorm|kysely|pg|better-sqlite3)/';
const NEST_SHAPED = '\\.(module|service|controller|repository|entity|listener|gateway)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Two files that import each other (directly or around a loop): move what both need into a file below them. ' +
        "A loop of entities alone is exempt: TypeORM's two sides of a relation name each other (lazily, () => Entity).",
      from: { path: '^src/', pathNot: '\\.entity\\.ts$' },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      severity: 'error',
      scope: 'folder',
      comment:
        'A top-level folder of src/ on a loop of folders (a folder imports what its files and subfolders import; ' +
        'the loop must come back into the folder itself to be seen): a feature listens to the events of the one below it, a shared ' +
        'type or rule moves down to where both import it, or the lower one offers a registry the upper one joins ' +
        '(StoredFileOwners, StatusChangeAudience). Never forwardRef.',
      from: { path: '^src/[^/]+$' },
      to: { circular: true },
    },
    {
      name: 'engine-room-stands-alone',
      severity: 'error',
      comment: 'src/platform/ is below everything: it imports nothing of the project (a type it needs lives in it).',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'shared-imports-no-feature',
      severity: 'error',
      comment: 'common, config, logging, database, storage, metrics and cluster are below every feature: they import only each other and the engine room.',
      from: { path: SHARED },
      to: { path: '^src/', pathNot: [SHARED, '^src/platform/'] },
    },
    {
      name: 'nothing-imports-the-app',
      severity: 'error',
      comment: 'AppModule, the bootstrap and the CLI compose the features; no feature or shared piece imports them.',
      from: { path: '^src/', pathNot: APP },
      to: { path: APP },
    },
    {
      name: 'libraries-know-no-nest',
      severity: 'error',
      comment: 'Archive inspection and the relay client are libraries: no Nest, no database, no module, service or repository.',
      from: { path: LIBRARIES },
      to: { path: [NEST_PACKAGES, NEST_SHAPED] },
    },
    {
      name: 'relay-client-stands-alone',
      severity: 'error',
      comment: 'The relay client (svc, svc mcp, svc agent, the CLI package) speaks HTTP to a relay and knows nothing of its inside.',
      from: { path: '^src/relay-client/' },
      to: { path: '^src/', pathNot: '^src/relay-client/' },
    },
    {
      name: 'cli-package-client-only',
      severity: 'error',
      comment:
        'The CLI package (packages/cli) bundles what src/cli/client-main.ts reaches: the client commands and the ' +
        'relay client, never the relay itself (docs/cli.md).',
      from: { path: '^src/cli/client-main\\.ts$' },
      to: { reachable: true, path: ['^src/', NEST_PACKAGES], pathNot: '^src/(cli|relay-client)/' },
    },
    {
      name: 'queries-in-repositories',
      severity: 'error',
      comment:
        "Query building (Kysely, the house's QueryBuilder) lives only in the owning module's *.repository.ts " +
        '(docs/database.md); services ask the repository.',
      from: {
        path: '^src/',
        pathNot: [
          '\\.repository\\.ts$',
          '^src/database/',
          // The migration tool copies every table between two databases, whatever module owns it.
          '^src/cli/migrate/copy-rows\\.ts$',
        ],
      },
      to: { path: ['^node_modules/kysely/', '^src/database/query-builder/query-builder\\.ts$'] },
    },
    {
      name: 'typeorm-repositories-in-repositories',
      severity: 'error',
      comment:
        'A TypeORM Repository is injected only where queries live (*.repository.ts); a module file declares its ' +
        'entities with TypeOrmModule.forFeature, the database layer owns the data source.',
      from: { path: '^src/', pathNot: ['\\.repository\\.ts$', '\\.module\\.ts$', '^src/database/', '^src/platform/', '^src/bootstrap/', '^src/cli/'] },
      to: { path: '^node_modules/@nestjs/typeorm/' },
    },
    {
      name: 'web-floor-imports-no-feature',
      severity: 'error',
      comment:
        "The dashboard's floor, ui/ (buttons, fields, formats, the QR code) and api/ (the client generated from the OpenAPI " +
        'document, uploads), is below every page: it imports only itself, so a feature folder can move without touching it.',
      from: { path: '^web/src/(ui|api)/' },
      to: { path: '^web/src/', pathNot: '^web/src/(ui|api)/' },
    },
    {
      name: 'web-no-circular',
      severity: 'error',
      comment: 'Two dashboard files that import each other (directly or around a loop): move what both need below them.',
      from: { path: '^web/src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are imports: a type that runs back up is an upward import.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Unit specs sit beside the code and may reach across to set up what they test.
    exclude: { path: '\\.spec\\.ts$' },
    // Folder-level rules (no-circular-folders) need the folders' metrics.
    metrics: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
};
