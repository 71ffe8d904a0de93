/** Every workflow the Leviath worker registers. */

export { fanOutShardWorkflow } from './agents/fan-out-shard.js';
export { pingWorkflow } from './ping.js';
export { agentRunWorkflow } from './run/agent-run.js';
export { notifyWorkflow } from './run/notify.js';
export { stageWorkflow } from './visit/stage.js';
