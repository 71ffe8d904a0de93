// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` is the config syntax under test.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandServer, expandVars } from '../../src/blueprint/mcp-servers.js';
import { parseUserConfig } from '../../src/blueprint/user-config.js';
import { sandboxPolicy } from '../../src/runtime/node/tool-context.js';
import { NO_READ_PATHS } from '../../src/tools/read-paths.js';
import { loadToml } from './helpers.js';

describe('[[mcp_servers]] in the user config', () => {
  it('reads stdio and HTTP servers', () => {
    const { config, diagnostics } = parseUserConfig(
      `
[[mcp_servers]]
name = "filesystem"
command = "node"
args = ["server.js", "/data"]
env = { LOG = "quiet" }
sandbox = false

[[mcp_servers]]
name = "remote"
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Bearer \${MY_TOKEN}" }
timeout_secs = 5
`,
      'config.toml',
    );
    expect(diagnostics).toEqual([]);
    expect(config.mcpServers).toEqual([
      {
        name: 'filesystem',
        command: 'node',
        args: ['server.js', '/data'],
        env: { LOG: 'quiet' },
        headers: {},
        sandbox: false,
        readPaths: [],
        timeoutSecs: 60,
      },
      {
        name: 'remote',
        url: 'https://mcp.example.com/mcp',
        args: [],
        env: {},
        headers: { Authorization: 'Bearer ${MY_TOKEN}' },
        sandbox: true,
        readPaths: [],
        timeoutSecs: 5,
      },
    ]);
  });

  it('expands ${VAR} from the environment when a server starts, not when the file is read', () => {
    const { config } = parseUserConfig(
      '[[mcp_servers]]\nname = "r"\nurl = "https://${HOST}/mcp"\nheaders = { A = "Bearer ${TOK}" }\n',
      'c.toml',
    );
    const server = config.mcpServers[0]!;
    expect(server.headers.A).toBe('Bearer ${TOK}');
    const sent = expandServer(server, { HOST: 'mcp.example.com', TOK: 's3cret' });
    expect(sent.url).toBe('https://mcp.example.com/mcp');
    expect(sent.headers.A).toBe('Bearer s3cret');
    expect(expandServer({ ...server, readPaths: ['${HOST}/lib'] }, { HOST: '/opt' }).readPaths).toEqual(['/opt/lib']);
    expect(expandVars('a $${KEEP} ${UNSET}b', {})).toBe('a ${KEEP} b');
  });

  it('reports entries it cannot use and leaves them out', () => {
    const { config, diagnostics } = parseUserConfig(
      `
[[mcp_servers]]
name = "both"
command = "x"
url = "https://x"

[[mcp_servers]]
name = "bad__name"
command = "x"

[[mcp_servers]]
name = "ok"
command = "x"
colour = "red"
`,
      'c.toml',
    );
    expect(config.mcpServers.map((s) => s.name)).toEqual(['ok']);
    expect(diagnostics.map((d) => d.message).join('\n')).toMatch(/needs exactly one of command/);
    expect(diagnostics.map((d) => d.message).join('\n')).toMatch(/needs a name of letters/);
    expect(diagnostics.map((d) => d.code)).toContain('unknown-key');
  });
});

describe('lev validate and MCP grants', () => {
  const bp = `
[agent]
name = "a"
[stages.work]
available_tools = ["read_file", "everything__echo", "create_issue"]
available_connectors = ["github"]
`;

  it('keeps granted MCP names once their servers are configured', () => {
    const userConfig = parseUserConfig(
      '[[mcp_servers]]\nname = "everything"\ncommand = "x"\n[[mcp_servers]]\nname = "github"\nurl = "https://g"\n',
      'c.toml',
    ).config;
    const r = loadToml(bp, {}, { userConfig });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.blueprint?.stages[0]?.availableTools).toEqual(['read_file', 'everything__echo', 'create_issue']);
    expect(r.blueprint?.stages[0]?.availableConnectors).toEqual(['github']);
  });

  it('says which server is missing otherwise', () => {
    const r = loadToml(bp);
    const messages = r.diagnostics
      .filter((d) => d.code === 'unknown-tool' || d.code === 'mcp-server-not-configured')
      .map((d) => d.message);
    expect(messages.join('\n')).toMatch(
      /`everything__echo`, a tool of the MCP server "everything", which your config does not declare/,
    );
    expect(messages.join('\n')).toMatch(
      /MCP server "github" in available_connectors, which your config does not declare/,
    );
    expect(messages.join('\n')).toMatch(/`create_issue`, which does not exist/);
  });

  it('still catches a typo of a built-in when servers are configured', () => {
    const userConfig = parseUserConfig('[[mcp_servers]]\nname = "everything"\ncommand = "x"\n', 'c.toml').config;
    const r = loadToml('[agent]\nname = "a"\n[stages.work]\navailable_tools = ["reed_file"]\n', {}, { userConfig });
    expect(r.diagnostics.find((d) => d.code === 'unknown-tool')?.message).toMatch(/did you mean "read_file"/);
  });
});

describe('the sandbox network switch', () => {
  it('is on only when the user config allows it and the blueprint asks', () => {
    const allowed = parseUserConfig('[sandbox]\nnetwork = true\n', 'c.toml').config;
    expect(allowed.sandbox.network).toBe(true);
    expect(parseUserConfig('', 'c.toml').config.sandbox.network).toBe(false);
    const asks = loadToml('[agent]\nname = "a"\n[sandbox]\nnetwork = true\n').blueprint!;
    const quiet = loadToml('[agent]\nname = "a"\n').blueprint!;
    const env = (config: string) => {
      const file = join(mkdtempSync(join(tmpdir(), 'lev-net-')), 'config.toml');
      writeFileSync(file, config);
      return { ...process.env, LEVIATH_CONFIG: file };
    };
    expect(sandboxPolicy(asks, NO_READ_PATHS, env('[sandbox]\nnetwork = true\n')).network).toBe(true);
    expect(sandboxPolicy(asks, NO_READ_PATHS, env('')).network).toBeUndefined();
    expect(sandboxPolicy(quiet, NO_READ_PATHS, env('[sandbox]\nnetwork = true\n')).network).toBeUndefined();
  });
});
