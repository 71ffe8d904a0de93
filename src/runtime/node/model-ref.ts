/**
 * A scripted model named by a relative `.toml` path finds its script beside
 * the blueprint, like every other path a blueprint names, so an agent and
 * its script travel together (`model = "scripted:script.toml"`).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parseModelRef } from '../../providers/builtin-models.js';
import type { Blueprint } from '../../shapes/frozen-blueprint.js';

export function providerRef(bp: Blueprint, model: string): string {
  const { provider, model: name } = parseModelRef(model);
  if (provider !== 'scripted' || !name.endsWith('.toml') || isAbsolute(name)) return model;
  const beside = join(bp.dir, name);
  return existsSync(beside) ? `scripted:${beside}` : model;
}
