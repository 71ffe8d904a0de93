// Types of src/state/user-dirs.mjs.
export interface UserDirs {
  data: string;
  config: string;
  cache: string;
}
export function homeOf(env: NodeJS.ProcessEnv): string;
export function userDirs(env: NodeJS.ProcessEnv, home?: string): UserDirs;
