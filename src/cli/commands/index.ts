import type { Command } from 'commander';
import { registerAgents } from './agents.js';
import { registerAnswer } from './answer.js';
import { registerApprove } from './approve.js';
import { registerAttach } from './attach.js';
import { registerBlobs } from './blobs.js';
import { registerCancel } from './cancel.js';
import { registerCodecServer } from './codec-server.js';
import { registerContext } from './context.js';
import { registerDeny } from './deny.js';
import { registerDoctor } from './doctor.js';
import { registerMcp } from './mcp.js';
import { registerModels } from './models.js';
import { registerMsg } from './msg.js';
import { registerPause } from './pause.js';
import { registerPs } from './ps.js';
import { registerResult } from './result.js';
import { registerResume } from './resume.js';
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
  registerMsg(program);
  registerApprove(program);
  registerDeny(program);
  registerAnswer(program);
  registerPause(program);
  registerResume(program);
  registerCancel(program);
  registerValidate(program);
  registerAgents(program);
  registerModels(program);
  registerDoctor(program);
  registerContext(program);
  registerMcp(program);
  registerServer(program);
  registerWorker(program);
  registerBlobs(program);
  registerCodecServer(program);
}
