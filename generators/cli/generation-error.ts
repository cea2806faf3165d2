// How `npm run generate` and `clusterspec generate`/`docs` report a generation that failed on the
// spec or the composition. Its own module, light on purpose: npm run generate loads it with the
// generators, and not the commands (which load the platform's generated validators from out/).
import { SpecError } from '../model/spec-error.ts';
import { ComposeError } from '../compose.ts';
import { EXIT, type CliIO } from './command.ts';

/** A spec, CRD or composition problem: the message names file, line and path; the output folder is untouched. */
export function reportGenerationError(io: CliIO, err: unknown, label: string): number | undefined {
  if (err instanceof SpecError) {
    io.stderr(`spec error${err.problems.length > 1 ? 's' : ''} (${label}/ left unchanged):\n${err.message}\n`);
    return EXIT.invalid;
  }
  if (err instanceof ComposeError) {
    io.stderr(`generation error (${label}/ left unchanged): ${err.message}\n`);
    return EXIT.invalid;
  }
  return undefined;
}
