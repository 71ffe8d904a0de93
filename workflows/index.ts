/** Every workflow the Leviath worker registers. */
export { pingWorkflow } from './ping.js';
