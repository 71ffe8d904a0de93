/** Every activity the Leviath worker registers. */
export { ping } from './ping.js';
