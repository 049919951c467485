import { bootRelayProcess } from './boot-process';

// src/main.ts imports this module first, for this call: an import runs before the importing module's
// own code, and before the modules imported after it.
bootRelayProcess();
