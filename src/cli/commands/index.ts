import type { Command } from 'commander';
import { registerAttach } from './attach.js';
import { registerBlobs } from './blobs.js';
import { registerContext } from './context.js';
import { registerPs } from './ps.js';
import { registerResult } from './result.js';
import { registerRun } from './run.js';
import { registerServer } from './server.js';
import { registerShow } from './show.js';
import { registerValidate } from './validate.js';
import { registerWorker } from './worker.js';

/** Every `lev` subcommand, in the order `lev --help` lists them. */
export function registerCommands(program: Command): void {
  registerRun(program);
  registerPs(program);
  registerShow(program);
  registerAttach(program);
  registerResult(program);
  registerValidate(program);
  registerContext(program);
  registerServer(program);
  registerWorker(program);
  registerBlobs(program);
}
