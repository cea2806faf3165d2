// The runtime cost budget of one evaluation (cel-go's interpreter/runtimecost.go); runtime/cel/cost.ts
// is the static estimate. Separate because the evaluation wrappers and the libraries both charge it.

/** Thrown when an evaluation exceeds its budget. Not an EvaluationError, so optionals never swallow it. */
export class CelCostLimitError extends Error {
  constructor(readonly limit: number) {
    super(`operation cancelled: actual cost limit exceeded (limit ${limit})`);
    this.name = 'CelCostLimitError';
  }
}

interface Budget {
  used: number;
  limit: number;
}
let currentBudget: Budget | null = null;

/** Charges one step, one AST node evaluation, to the evaluation in progress (the instrumentation's per-node count). */
export function chargeStep(): void {
  const b = currentBudget;
  if (b !== null && ++b.used > b.limit) throw new CelCostLimitError(b.limit);
}

/** Charges `units` to the evaluation in progress (libraries call this for size-proportional work). */
export function chargeCost(units: number): void {
  const b = currentBudget;
  if (b === null) return;
  b.used += units;
  if (b.used > b.limit) throw new CelCostLimitError(b.limit);
}

/** Size-proportional cost of traversing a string or list, as cel-go charges it (0.1 per unit). */
export function traversalCost(size: number): number {
  return Math.ceil(size * 0.1);
}

/**
 * Runs one evaluation under a fresh budget of `limit` units; the budget of an enclosing evaluation is
 * restored after. `spent.cost` receives the units the evaluation used (cel-go's ActualCost), also
 * when it throws, so that a caller can charge them to a budget spanning many evaluations.
 */
export function evaluateWithBudget<T>(limit: number, run: () => T, spent?: { cost: number }): T {
  const outer = currentBudget;
  const budget: Budget = { used: 0, limit };
  currentBudget = budget;
  try {
    const result = run();
    if (budget.used > budget.limit) throw new CelCostLimitError(budget.limit);
    return result;
  } catch (e) {
    if (budget.used > budget.limit) throw new CelCostLimitError(budget.limit);
    throw e;
  } finally {
    currentBudget = outer;
    if (spent) spent.cost = budget.used;
  }
}
