// The report formats of `clusterspec validate -o FORMAT[=FILE]`: one file per format, one entry here.
import type { Reporter } from './reporter.ts';
import { textReporter } from './text.ts';
import { jsonReporter } from './json.ts';
import { junitReporter } from './junit.ts';
import { sarifReporter } from './sarif.ts';

export const reporters: Record<string, Reporter> = {
  text: textReporter,
  json: jsonReporter,
  junit: junitReporter,
  sarif: sarifReporter,
};

export type { Reporter, ReportOptions, Rendered } from './reporter.ts';
