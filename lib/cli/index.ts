export { runCli, errorLine } from './run';
export type { CliIo, CliStream, CliInput } from './io';
