// A column of kubectl's table output (Table form), for built-in types and CRDs alike.
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description: string;
  format?: string;
  priority?: number;
  /** Count the keys or items found at these paths instead of printing a value. */
  count?: readonly string[];
}
