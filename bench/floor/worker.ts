/**
 * The floor's worker process: the floor workflow and its activity on a
 * worker made with `lev worker`'s settings (slots, workflow threads,
 * timeouts: `leviathWorkerOptions`) but none of Leviath's code, interceptors
 * or sinks. Run as `node --import tsx bench/floor/worker.ts ADDRESS QUEUE`;
 * prints "worker polling" when ready, as `lev worker` does.
 */
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { DEFAULT_NAMESPACE, installRuntime, leviathWorkerOptions } from '../../src/worker/create-worker.js';
import * as activities from './activities.js';

const [address, taskQueue] = process.argv.slice(2);
if (!address || !taskQueue) throw new Error('usage: node --import tsx bench/floor/worker.ts ADDRESS QUEUE');
installRuntime('WARN');
const bundle = await bundleWorkflowCode({
  workflowsPath: new URL('./workflow.ts', import.meta.url).pathname,
  logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
});
const { interceptors: _interceptors, sinks: _sinks, ...settings } = await leviathWorkerOptions({ taskQueue, bundle });
const connection = await NativeConnection.connect({ address });
const worker = await Worker.create({ connection, namespace: DEFAULT_NAMESPACE, ...settings, activities });
process.stdout.write(`floor worker polling task queue "${taskQueue}"\n`);
await worker.run();
await connection.close();
