/** A provider SDK the install left out is a coded error that names the package (src/providers/optional-sdk.ts). */

import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLevError } from '../../src/errors.js';
import { loadSdk } from '../../src/providers/optional-sdk.js';

/** `require` from a folder with no node_modules above it: what a provider module sees after `--omit=optional`. */
const requireWithout = createRequire(join(mkdtempSync(join(tmpdir(), 'lev-no-sdk-')), 'provider.js'));

describe('loadSdk', () => {
  it('loads an installed SDK', () => {
    const sdk = loadSdk<{ default: unknown }>(createRequire(import.meta.url), 'openai', 'OpenAI-compatible');
    expect(typeof sdk.default).toBe('function');
  });

  it.each([
    ['openai', 'OpenAI-compatible'],
    ['@anthropic-ai/sdk', 'Anthropic'],
    ['@google/genai', 'Gemini'],
  ])('answers sdk-not-installed, naming %s, when npm left it out', (name, provider) => {
    let caught: unknown;
    try {
      loadSdk(requireWithout, name, provider);
    } catch (err) {
      caught = err;
    }
    expect(isLevError(caught) && caught.code).toBe('sdk-not-installed');
    expect((caught as Error).message).toContain(`The ${provider} provider needs the npm package ${name}`);
    expect((caught as Error).message).toContain(`npm i ${name}`);
  });

  it('lets any other failure through: a module of the SDK that is missing is no left-out SDK', () => {
    const broken = () => {
      throw Object.assign(
        new Error("Cannot find module 'node-fetch'\nRequire stack:\n- /x/node_modules/openai/index.js"),
        {
          code: 'MODULE_NOT_FOUND',
        },
      );
    };
    expect(() => loadSdk(broken, 'openai', 'OpenAI-compatible')).toThrow(/node-fetch/);
  });
});
