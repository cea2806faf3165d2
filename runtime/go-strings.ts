// Go's string trimming (strings.TrimSpace), where upstream's behaviour depends on it: a stored
// matchCondition expression is compiled trimmed, and an Event's Message cell prints trimmed.

/** unicode.IsSpace: the characters Go's strings.TrimSpace removes. */
function isGoSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) || c === 0x20 || c === 0x85 || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

/** strings.TrimSpace, without a regular expression (a backtracking `\s+$` is quadratic on user data). */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}
