/**
 * The working directory a run is confined to must exist and be a directory
 * before the run starts; otherwise every tool call and seed of the run
 * would fail one by one.
 */
import { statSync } from 'node:fs';
import { LevError } from '../../errors.js';

export function checkWorkdir(workdir: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(workdir).isDirectory();
  } catch {
    throw new LevError(
      'workdir-missing',
      `The working directory ${workdir} does not exist; create it, or pass --workdir with an existing directory.`,
    );
  }
  if (!isDirectory)
    throw new LevError(
      'workdir-not-a-directory',
      `The working directory ${workdir} is a file, not a directory; pass --workdir with the directory the agent should work in.`,
    );
}
