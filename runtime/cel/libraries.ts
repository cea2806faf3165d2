// Installs the platform libraries (reference/cel.md) into the base CEL environment, once.

import { installExtension, installLibraries, type CelLibrary } from './engine.ts';
import { blockLibrary, rewriteBlockSyntax } from './library/block.ts';
import { comprehensionsLibrary } from './library/comprehensions.ts';
import { formatLibrary } from './library/format.ts';
import { ipLibrary } from './library/ip.ts';
import { encodersLibrary } from './library/encoders.ts';
import { listsLibrary } from './library/lists.ts';
import { mathLibrary } from './library/math.ts';
import { numericConversionsLibrary } from './library/numeric-conversions.ts';
import { optionalsLibrary } from './library/optionals.ts';
import { quantityLibrary } from './library/quantity.ts';
import { regexLibrary } from './library/regex.ts';
import { semverLibrary } from './library/semver.ts';
import { stringsLibrary } from './library/strings.ts';
import { timeBytesLibrary } from './library/time-bytes.ts';
import { urlLibrary } from './library/url.ts';

export const LIBRARIES: CelLibrary[] = [
  regexLibrary,
  stringsLibrary,
  listsLibrary,
  comprehensionsLibrary,
  urlLibrary,
  ipLibrary,
  semverLibrary,
  formatLibrary,
  quantityLibrary,
  optionalsLibrary,
  timeBytesLibrary,
  numericConversionsLibrary,
];

installLibraries(LIBRARIES);

/** cel-go extensions Kubernetes does not enable: only environments that name them get them. */
installExtension('math', mathLibrary);
installExtension('encoders', encodersLibrary);
installExtension('block', blockLibrary, rewriteBlockSyntax);
