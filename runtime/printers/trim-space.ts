// A text cell with leading and trailing white space removed as Go's strings.TrimSpace does (Event Message).
import type { CellFormatter } from './types.ts';
import { goTrimSpace } from '../go-strings.ts';

export const trimSpace: CellFormatter = (value) => (typeof value === 'string' ? goTrimSpace(value) : undefined);
