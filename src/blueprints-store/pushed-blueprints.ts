/**
 * Pushed blueprints (docs/reference/cluster-runs.md#the-store): each
 * compiled, validated blueprint stored once under the hash of its JSON, and
 * each name a sequence of versions 1, 2, 3, ... that point at those hashes.
 * Not the blob store's blobs: those are collected once no run refers to them
 * (`lev blobs gc`), and a pushed blueprint must stay until someone removes
 * it. `BlueprintStore` holds what every store does with versions (find,
 * resolve); a folder (`FolderBlueprintStore`, below) serves one machine, and
 * PostgreSQL (`pg-blueprints.ts`) a cluster whose blob store is there.
 *
 *     <root>/objects/<sha256>.json        the compiled blueprint
 *     <root>/names/<name>/<version>.json  { name, version, hash, pushedAt, source }
 *
 * A version file is created with `wx`, so two pushes at once take two
 * versions and never overwrite each other.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LevError } from '../errors.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { dataPath } from '../state/locations.js';

/** One version of a name. */
export interface BlueprintVersion {
  name: string;
  version: number;
  /** sha256 of the compiled blueprint's JSON. */
  hash: string;
  pushedAt: string;
  /** The directory or file it was pushed from. */
  source: string;
}

/** `name` (its latest version) or `name@version`. */
export interface BlueprintRef {
  name: string;
  version?: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The store's folder: `LEVIATH_BLUEPRINT_DIR`, else `blueprints/` in the data folder. */
export function blueprintStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.LEVIATH_BLUEPRINT_DIR ?? dataPath('blueprints', env);
}

export function checkName(name: string): string {
  if (!NAME.test(name))
    throw new LevError(
      'blueprint-ref-bad',
      `"${name}" is not a blueprint name: use letters, digits, ".", "_" and "-" (up to 100, starting with a letter or digit), for example --name billing-triage.`,
    );
  return name;
}

export function parseRef(text: string): BlueprintRef {
  const at = text.lastIndexOf('@');
  if (at < 0) return { name: checkName(text) };
  const version = Number(text.slice(at + 1));
  if (!/^\d+$/.test(text.slice(at + 1)) || version < 1)
    throw new LevError(
      'blueprint-ref-bad',
      `"${text}" is not a blueprint reference: write name@version with a version from 1, or the name alone for its latest version.`,
    );
  return { name: checkName(text.slice(0, at)), version };
}

export function formatRef(v: Pick<BlueprintVersion, 'name' | 'version'>): string {
  return `${v.name}@${v.version}`;
}

export function blueprintHash(bp: Blueprint): string {
  return createHash('sha256').update(JSON.stringify(bp), 'utf8').digest('hex');
}

/** A store of pushed blueprints: what each kind keeps, and the lookups they share. */
export abstract class BlueprintStore {
  /** Where the store is, for messages: a folder, or a database URL without its password. */
  abstract readonly where: string;

  /**
   * Stores the blueprint under the name. Pushing what the latest version
   * already holds takes no new version (`created` is false).
   */
  abstract push(
    name: string,
    bp: Blueprint,
    source: string,
    now?: Date,
  ): Promise<BlueprintVersion & { created: boolean }>;

  /** A name's versions, oldest first; none when the name was never pushed. */
  abstract versions(name: string): Promise<BlueprintVersion[]>;

  /** Every pushed name with its latest version, by name. */
  abstract names(): Promise<BlueprintVersion[]>;

  /** The compiled blueprint stored under a hash, or undefined when it is missing. */
  protected abstract object(hash: string): Promise<Blueprint | undefined>;

  abstract close(): Promise<void>;

  /** The version a reference names, or `blueprint-ref-unknown`. */
  async find(ref: BlueprintRef): Promise<BlueprintVersion> {
    const versions = await this.versions(ref.name);
    const found = ref.version === undefined ? versions.at(-1) : versions.find((v) => v.version === ref.version);
    if (found) return found;
    const text = ref.version === undefined ? ref.name : formatRef({ name: ref.name, version: ref.version });
    throw new LevError(
      'blueprint-ref-unknown',
      versions.length === 0
        ? `No blueprint named "${ref.name}" was pushed to ${this.where}; \`lev blueprint push DIR --name ${ref.name}\` stores one, \`lev blueprint list\` lists what there is.`
        : `"${text}" names no version of "${ref.name}" in ${this.where}: it has versions 1 to ${versions.at(-1)?.version}; \`lev blueprint list ${ref.name}\` lists them.`,
    );
  }

  /** The compiled blueprint a reference names, with the version it resolved to. */
  async resolve(text: string): Promise<{ bp: Blueprint; version: BlueprintVersion }> {
    const version = await this.find(parseRef(text));
    const bp = await this.object(version.hash);
    if (!bp)
      throw new LevError(
        'blueprint-ref-unknown',
        `${formatRef(version)} points at blueprint ${version.hash.slice(0, 12)}, which is missing from ${this.where}; push the blueprint again.`,
      );
    return { bp, version };
  }
}

/** Pushed blueprints in a folder (`$LEVIATH_BLUEPRINT_DIR`, else `blueprints/` in the data folder). */
export class FolderBlueprintStore extends BlueprintStore {
  constructor(readonly root: string = blueprintStoreDir()) {
    super();
  }

  get where(): string {
    return this.root;
  }

  async push(
    name: string,
    bp: Blueprint,
    source: string,
    now = new Date(),
  ): Promise<BlueprintVersion & { created: boolean }> {
    checkName(name);
    const hash = blueprintHash(bp);
    const objects = join(this.root, 'objects');
    mkdirSync(objects, { recursive: true });
    const object = join(objects, `${hash}.json`);
    // Written aside and renamed, so a reader never sees half a blueprint.
    const tmp = `${object}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(bp));
    renameSync(tmp, object);
    const latest = (await this.versions(name)).at(-1);
    if (latest?.hash === hash) return { ...latest, created: false };
    const dir = join(this.root, 'names', name);
    mkdirSync(dir, { recursive: true });
    for (let version = (latest?.version ?? 0) + 1; ; version++) {
      const entry: BlueprintVersion = { name, version, hash, pushedAt: now.toISOString(), source };
      try {
        writeFileSync(join(dir, `${version}.json`), `${JSON.stringify(entry)}\n`, { flag: 'wx' });
        return { ...entry, created: true };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }

  async versions(name: string): Promise<BlueprintVersion[]> {
    let files: string[];
    try {
      files = readdirSync(join(this.root, 'names', checkName(name)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return files
      .filter((f) => /^\d+\.json$/.test(f))
      .map((f) => JSON.parse(readFileSync(join(this.root, 'names', name, f), 'utf8')) as BlueprintVersion)
      .sort((a, b) => a.version - b.version);
  }

  async names(): Promise<BlueprintVersion[]> {
    let names: string[];
    try {
      names = readdirSync(join(this.root, 'names'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const latest = await Promise.all(
      names
        .filter((n) => NAME.test(n))
        .sort()
        .map(async (n) => (await this.versions(n)).at(-1)),
    );
    return latest.filter((v) => v !== undefined);
  }

  protected async object(hash: string): Promise<Blueprint | undefined> {
    try {
      return JSON.parse(readFileSync(join(this.root, 'objects', `${hash}.json`), 'utf8')) as Blueprint;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {}
}
