// Types of scripts/test-server.mjs for the tests that import it.
export const TEST_SERVER_VERSION: string;
export function testServerDir(env?: NodeJS.ProcessEnv): string;
export function ensureTestServer(opts?: { env?: NodeJS.ProcessEnv; log?: (line: string) => void }): string;
