// The flag table as the extension (`@mcp-tasks/server/flags`) and other launchers use it: names,
// defaults, variables, and the command line that sets a flag.
export { FLAGS, flagNamed, shownDefault, type FlagName, type ServerFlag } from './table.js';
export { envName, flagArgs, formatDuration, type Flag } from './spec.js';
