// The subcommands of `clusterspec`: one file each in this folder, one entry here.
import type { Command } from '../command.ts';
import { docsCommand } from './docs.ts';
import { generateCommand } from './generate.ts';
import { validateCommand } from './validate.ts';

export const commands: Command[] = [validateCommand, generateCommand, docsCommand];
