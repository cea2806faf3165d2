// A conservative, iterative pre-scan of YAML text before the recursive `yaml` composer sees it. It
// reads the library's own Lexer (a state machine, no recursion; block scalars, quotes and comments
// come out as single tokens) and bounds the nesting depth from above:
//  - flow collections: `[`/`{` tokens counted exactly;
//  - block collections: every one starts at a column at least its parent's, and only a sequence
//    inside a mapping may share its parent's column, so block depth <= 2 * (start column + 1).
// Hence depth <= 2 * (largest block start column + 1) + deepest flow nesting. It also counts alias
// tokens: each alias the library resolves walks the whole document.

import { CST, Lexer } from 'yaml';

export interface YamlPrescan {
  /** An upper bound on the nesting depth of any node. */
  depthBound: number;
  /** `*alias` tokens. */
  aliases: number;
  /** All tokens (the size the library walks for each alias). */
  tokens: number;
}

/** Scans `text`; stops early (the bound then already above `stopAbove`) once the bound passes `stopAbove`. */
export function prescanYaml(text: string, stopAbove = Number.POSITIVE_INFINITY): YamlPrescan {
  let column = 0;
  let flowDepth = 0;
  let maxFlowDepth = 0;
  let maxBlockColumn = 0;
  let aliases = 0;
  let tokens = 0;
  // Column where the latest content token of the line began: a key, when `:` follows.
  let contentColumn = 0;
  for (const token of new Lexer().lex(text)) {
    tokens++;
    const type = CST.tokenType(token);
    const start = column;
    // Control tokens (document, scalar and flow-end markers) take no room in the source.
    if (type === 'doc-mode' || type === 'flow-error-end' || type === 'scalar') continue;
    const nl = token.lastIndexOf('\n');
    column = nl === -1 ? column + token.length : token.length - nl - 1;
    switch (type) {
      case 'flow-map-start':
      case 'flow-seq-start':
        if (++flowDepth > maxFlowDepth) maxFlowDepth = flowDepth;
        contentColumn = start;
        // The lexer slows down with flow depth: stop as soon as the answer is known.
        if (2 * (maxBlockColumn + 1) + maxFlowDepth > stopAbove) return { depthBound: 2 * (maxBlockColumn + 1) + maxFlowDepth, aliases, tokens };
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        if (flowDepth > 0) flowDepth--;
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        if (flowDepth === 0 && start > maxBlockColumn) maxBlockColumn = start;
        if (2 * (maxBlockColumn + 1) + maxFlowDepth > stopAbove) return { depthBound: 2 * (maxBlockColumn + 1) + maxFlowDepth, aliases, tokens };
        break;
      case 'map-value-ind':
        // The mapping starts where its key does.
        if (flowDepth === 0 && contentColumn > maxBlockColumn) maxBlockColumn = contentColumn;
        if (2 * (maxBlockColumn + 1) + maxFlowDepth > stopAbove) return { depthBound: 2 * (maxBlockColumn + 1) + maxFlowDepth, aliases, tokens };
        break;
      case 'alias':
        aliases++;
        contentColumn = start;
        break;
      case 'space':
      case 'newline':
      case 'comment':
      case 'comma':
        break;
      default:
        contentColumn = start;
    }
  }
  return { depthBound: 2 * (maxBlockColumn + 1) + maxFlowDepth, aliases, tokens };
}
