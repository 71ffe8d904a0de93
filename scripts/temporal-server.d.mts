// Types of scripts/temporal-server.mjs for the tests that import it.
import type { ChildProcess, StdioOptions } from 'node:child_process';

export interface TemporalServerBinaries {
  dir: string;
  server: string;
  sqlTool: string;
}
export interface PgAddress {
  host: string;
  port: number;
  user: string;
  password?: string;
}
export interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}
export interface Databases {
  default: string;
  visibility: string;
}

export const MODULE_DIR: string;
export const GO_TOOLCHAIN: string;
export const SEARCH_ATTRIBUTES: string[];
export const DYNAMIC_CONFIG: string;
export function serverVersion(moduleDir?: string): string;
export function cacheDir(env?: NodeJS.ProcessEnv, moduleDir?: string): string;
export function binariesIn(dir: string): TemporalServerBinaries;
export function cachedBinaries(env?: NodeJS.ProcessEnv): TemporalServerBinaries | undefined;
export function ensureTemporalServer(opts?: {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}): TemporalServerBinaries;
export function setupSchema(bins: TemporalServerBinaries, pg: PgAddress, databases?: Databases): void;
export function freePort(): Promise<number>;
export function serverPorts(frontend?: number): Promise<ServerPorts>;
export function renderConfig(opts: {
  pg: PgAddress;
  ports: ServerPorts;
  databases?: Databases;
  dynamicConfigFile: string;
}): string;
export function writeConfig(dir: string, opts: { pg: PgAddress; ports: ServerPorts; databases?: Databases }): string;
export function spawnServer(
  bins: TemporalServerBinaries,
  configFile: string,
  opts?: { stdio?: StdioOptions },
): ChildProcess;
export function prepareNamespace(address: string, namespace?: string): Promise<void>;
export function waitForFrontend(address: string, child: ChildProcess, timeoutMs?: number): Promise<void>;
