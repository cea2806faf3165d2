// Limits every request-body decoder enforces (issue 16): nesting depth as upstream, and the lower
// YAML bound that keeps the recursive `yaml` library far from the stack's end.

/** Upstream's limit (encoding/json and sigs.k8s.io/json `maxNestingDepth`): 10,000 levels pass, 10,001 fail. */
export const MAX_NESTING_DEPTH = 10_000;

/**
 * YAML that is not JSON text is parsed by the `yaml` library, whose composer and toJS recurse per
 * level: measured on Node 20 with the default stack, flow collections overflow at about 785 levels
 * and block mappings at about 880 (then V8 can die in its RegExp compiler). The pre-scan bound is an
 * over-estimate (block levels count up to twice), so 500 on that bound keeps real depth under ~500.
 */
export const MAX_YAML_NESTING_DEPTH = 500;

/** The `yaml` library's alias budget (its `maxAliasCount`), as go-yaml's excessive-aliasing guard. */
export const MAX_YAML_ALIAS_COUNT = 100;

/** Nodes a YAML value may expand to through aliases before it counts as excessive aliasing. */
export const MAX_YAML_EXPANDED_NODES = 1_000_000;

/**
 * The `yaml` library walks the whole document for every alias it resolves, so aliases × tokens
 * bounds its work: measured, 800 distinct anchor/alias pairs (9.6M) take ~60-150 ms and 3,000
 * (~1.3e8) 10.7 s. Past 100 aliases, documents above this product count as excessive aliasing.
 */
export const MAX_YAML_ALIAS_WORK = 4_000_000;
