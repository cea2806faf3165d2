// A column of kubectl's table output (Table form), for built-in types and CRDs alike: part of a
// resource's description (resource-descriptor.ts), rendered by runtime/http/table.ts.
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description: string;
  format?: string;
  priority?: number;
  /** Count the keys or items found at these paths instead of printing a value. */
  count?: readonly string[];
  /** A named cell formatter (runtime/printers) applied to the value at jsonPath. */
  formatter?: string;
  /** The cell when the value (after the formatter) is absent or an empty list, as upstream's Go zero values print. */
  whenAbsent?: string | number | boolean;
}
