import type { Command } from 'commander';
import { registerAnswer } from './answer.js';
import { registerApprove } from './approve.js';
import { registerAttach } from './attach.js';
import { registerBlobs } from './blobs.js';
import { registerBlueprint } from './blueprint.js';
import { registerCancel } from './cancel.js';
import { registerContext } from './context.js';
import { registerDeny } from './deny.js';
import { registerMsg } from './msg.js';
import { registerPause } from './pause.js';
import { registerPs } from './ps.js';
import { registerResult } from './result.js';
import { registerResume } from './resume.js';
import { registerRun } from './run.js';
import { registerSchedule } from './schedule.js';
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
  registerMsg(program);
  registerApprove(program);
  registerDeny(program);
  registerAnswer(program);
  registerPause(program);
  registerResume(program);
  registerCancel(program);
  registerValidate(program);
  registerBlueprint(program);
  registerSchedule(program);
  registerContext(program);
  registerServer(program);
  registerWorker(program);
  registerBlobs(program);
}
