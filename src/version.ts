/** The version `lev --version` prints and `runtime_info` reports; kept equal to package.json's by test/version.test.ts. */
export const LEVIATH_VERSION = '0.3.0';
