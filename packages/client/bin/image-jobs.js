#!/usr/bin/env node
// The command line lives in the compiled package (npm run build); this file only starts it, so
// that npm can link the `image-jobs` command at install time, before anything is built.
require('../dist/cli/main.js');
