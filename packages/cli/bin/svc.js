#!/usr/bin/env node
'use strict';
// `svc` of the standalone CLI package: the client commands (upload, builds, apps) bundled from the
// relay's src/cli into dist/ by `npm pack` (prepack). The relay's own bin/svc.js runs the same code.
const { version } = require('../package.json');

require('../dist/svc.js').runClientCli(process.argv, version);
