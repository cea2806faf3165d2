// Installs the platform libraries (reference/cel.md) into the base CEL environment, once.

import { installLibraries, type CelLibrary } from './engine.ts';
import { comprehensionsLibrary } from './library/comprehensions.ts';
import { formatLibrary } from './library/format.ts';
import { ipLibrary } from './library/ip.ts';
import { listsLibrary } from './library/lists.ts';
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
