/** Every workflow the Leviath worker registers. */
export { agentRunWorkflow, runProgressQuery } from './agent-run.js';
export { fanOutShardWorkflow } from './fan-out-shard.js';
export { pingWorkflow } from './ping.js';
export { stageProgressQuery, stageWorkflow } from './stage.js';
