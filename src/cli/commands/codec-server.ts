/** `lev codec-server`: decrypts payloads for the Web UI and the `temporal` CLI (src/codec/decode-server.ts). */
import type { Command } from 'commander';
import { LevError } from '../../errors.js';
import { parseHostPort } from '../options.js';

interface CodecServerFlags {
  listen: { host: string; port: number };
  allowOrigin: string[];
}

/** The dev server's Web UI (`lev server`, `lev run`) as the browser may name it. */
const LOCAL_UI = ['http://localhost:8233', 'http://127.0.0.1:8233'];

export function registerCodecServer(program: Command): void {
  program
    .command('codec-server')
    .description(
      'Serve the codec of LEVIATH_CODEC_KEY_FILE over HTTP, so the Web UI and `temporal --codec-endpoint` show decrypted payloads.',
    )
    .option('--listen <host:port>', 'address to listen on (keep it on loopback or behind auth)', parseHostPort, {
      host: '127.0.0.1',
      port: 8888,
    })
    .option(
      '--allow-origin <origin>',
      `a Web UI origin whose pages may call it (repeatable; "*" trusts any; default ${LOCAL_UI.join(', ')})`,
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .action(async (flags: CodecServerFlags) => {
      const { configuredKeyring } = await import('../../codec/keys.js');
      const { AesGcmPayloadCodec } = await import('../../codec/payload-codec.js');
      const { startCodecServer } = await import('../../codec/decode-server.js');
      const keys = configuredKeyring();
      if (!keys)
        throw new LevError(
          'codec-not-configured',
          'No codec key is configured, so there is nothing to decrypt with; set LEVIATH_CODEC_KEY_FILE (or [runtime] codec_key_file) to the key file the workers use.',
        );
      const running = await startCodecServer({
        codec: new AesGcmPayloadCodec(keys),
        ...flags.listen,
        allowOrigins: flags.allowOrigin ?? LOCAL_UI,
      });
      process.stdout.write(
        `codec server at ${running.url} (key ${keys.current} encrypts, ${keys.keys.size} known); Web UI: set its codec endpoint to ${running.url}; CLI: temporal --codec-endpoint ${running.url} ...\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await running.close();
    });
}
