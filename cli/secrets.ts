// Secrets the CLI sends (the inject token, the platform's X-Auth-Token) come from a file or from an
// environment variable, never from the command line (argv is visible to every user in `ps`), and are
// never printed: each one read is handed to the output scrubber.
import { readFileSync } from 'node:fs';
import { CliError } from './output';

export interface SecretSource {
  /** What the secret is, for messages: "inject token". */
  what: string;
  /** A file holding it (wins over the variable). */
  file?: string;
  /** The name of the environment variable holding it. */
  envName: string;
  /** The flags that choose the file and the variable, for messages. */
  fileFlag: string;
  envFlag: string;
}

/** The secret, trimmed, or undefined when neither the file nor the variable gives one. */
export function readSecret(source: SecretSource, env: NodeJS.ProcessEnv, protect: (secret: string) => void): string | undefined {
  let value: string | undefined;
  if (source.file) {
    try {
      value = readFileSync(source.file, 'utf8').trim();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new CliError(
        'invalid_config',
        `cannot read the ${source.what} from ${source.file} (${code})`,
        `point ${source.fileFlag} at a readable file holding only the ${source.what}`,
      );
    }
    if (!value)
      throw new CliError(
        'invalid_config',
        `${source.file} is empty`,
        `write the ${source.what} into ${source.file}, or use ${source.envFlag}`,
      );
  } else {
    value = env[source.envName]?.trim() || undefined;
  }
  if (value) protect(value);
  return value;
}
