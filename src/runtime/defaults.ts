/** Connection defaults shared by the CLI and the worker (a light module: no SDK imports). */
export const DEFAULT_TASK_QUEUE = 'leviath';
export const DEFAULT_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_NAMESPACE = 'default';
