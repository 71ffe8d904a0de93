/** `[notify]` in a blueprint (docs/reference/cluster-runs.md#the-notify-table). */
import { describe, expect, it } from 'vitest';
import { loadToml } from './helpers.js';

describe('[notify] in a blueprint', () => {
  it('lists its webhooks, and a blueprint without one has no notify key', () => {
    const { blueprint } = loadToml(`
[agent]
name = "told"
[[notify.webhooks]]
url = "https://hooks.example.com/runs"
secret_env = "RUN_HOOK_SECRET"
events = ["failed", "waiting"]
`);
    expect(blueprint?.notify).toEqual([
      { url: 'https://hooks.example.com/runs', secretEnv: 'RUN_HOOK_SECRET', events: ['failed', 'waiting'] },
    ]);
    expect('notify' in (loadToml('[agent]\nname = "quiet"\n').blueprint ?? {})).toBe(false);
  });

  it('reports a webhook it cannot use as an error finding', () => {
    const loaded = loadToml('[[notify.webhooks]]\nurl = "https://x"\nevents = ["done"]\n');
    expect(loaded.blueprint).toBeUndefined();
    const finding = loaded.diagnostics.find((d) => d.code === 'bad-value');
    expect(finding?.message).toContain(
      '[notify] events of https://x must be some of completed, failed, cancelled, waiting',
    );
  });

  it('gives its webhooks the patience of the table, and refuses one that is no duration', () => {
    const { blueprint } = loadToml(`
[agent]
name = "patient"
[notify]
patience = "1h30m"
[[notify.webhooks]]
url = "https://hooks.example.com/runs"
`);
    expect(blueprint?.notify).toEqual([
      {
        url: 'https://hooks.example.com/runs',
        events: ['completed', 'failed', 'cancelled', 'waiting'],
        patienceSecs: 5400,
      },
    ]);
    const bad = loadToml('[notify]\npatience = "forever"\n[[notify.webhooks]]\nurl = "https://x"\n');
    expect(bad.diagnostics.find((d) => d.code === 'bad-value')?.message).toContain(
      '[notify] `patience` must be a duration such as "6h", "30m" or "1d"',
    );
  });
});
