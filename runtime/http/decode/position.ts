// Where an offset of a request body lies, for error messages that say where without quoting.

/** 1-based line and column (UTF-16 units) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** ` at line L, column C`: appended to a decode message in place of upstream's quoted source. */
export function where(text: string, offset: number): string {
  const { line, column } = lineColumn(text, offset);
  return ` at line ${line}, column ${column}`;
}
