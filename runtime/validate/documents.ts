// A manifest file's documents, parsed with positions kept: a broken document is reported and the
// ones after it are still read; duplicate keys are recorded (strict decoding reports them).
import { isMap, isSeq, LineCounter, parseAllDocuments, parseDocument, type Document, type Node } from 'yaml';
import { pathOfKeyAt, type PathSegment, type Position } from './positions.ts';

/** What validation needs of a document: its data, its problems, where it and (for a List) its items start. */
export interface DocumentValue {
  index: number;
  /** The document as data; undefined when it has a syntax error. */
  value?: unknown;
  syntaxError?: Position & { message: string };
  duplicates: Array<Position & { path: PathSegment[] }>;
  position: Position;
  /** Where each item of `items` starts, when the document has a list of items (a List). */
  itemPositions?: Position[];
  /** The document's own text, [start, end) of the file's, its first line numbered `line` (the scanner's reading): findings are placed by parsing it alone. */
  span?: { start: number; end: number; line: number };
}

export interface ParsedDocument extends DocumentValue {
  doc: Document;
  /** Offset where the document starts (its position when nothing better is known). */
  start: number;
}

export interface ParsedFile {
  lines: LineCounter;
  documents: ParsedDocument[];
}

const at = (lines: LineCounter, offset: number): Position => {
  const p = lines.linePos(offset);
  return { line: p.line, column: p.col };
};

export function parseManifests(text: string): ParsedFile {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, intAsBigInt: false });
  const documents: ParsedDocument[] = [];
  let index = 0;
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const start = doc.range?.[0] ?? 0;
    const contents = doc.contents as Node | null;
    const parsed: ParsedDocument = { index: index++, doc, start, duplicates: [], position: at(lines, contents?.range?.[0] ?? start) };
    const items = isMap(contents) ? contents.get('items', true) : undefined;
    if (isSeq(items)) parsed.itemPositions = items.items.map((item) => at(lines, (item as Node | null)?.range?.[0] ?? start));
    const fatal = doc.errors.find((e) => e.code !== 'DUPLICATE_KEY');
    if (fatal) {
      parsed.syntaxError = { ...at(lines, fatal.pos[0]), message: fatal.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '') };
    } else {
      for (const e of doc.errors) parsed.duplicates.push({ ...at(lines, e.pos[0]), path: pathOfKeyAt(doc, e.pos[0]) ?? [] });
      try {
        parsed.value = doc.toJS({ maxAliasCount: 100 });
      } catch (e) {
        parsed.syntaxError = { ...at(lines, start), message: (e as Error).message };
      }
    }
    documents.push(parsed);
  }
  return { lines, documents };
}

/** A document's YAML nodes, which place findings: `lines` turns their offsets into the file's lines and columns. */
export interface LocatedDocument {
  doc: Document;
  lines: Pick<LineCounter, 'linePos'>;
  /** Where a finding goes when no node is found. */
  start: number;
}

/** The nodes of one document of a file parsed apart from the others, from its span (the scanner's): positions are the file's. */
export function parseDocumentAlone(text: string, span: NonNullable<DocumentValue['span']>): LocatedDocument {
  const lines = new LineCounter();
  const doc = parseDocument(text.slice(span.start, span.end), { lineCounter: lines, intAsBigInt: false });
  const linePos = (offset: number): { line: number; col: number } => {
    const p = lines.linePos(offset);
    return { line: p.line + span.line - 1, col: p.col };
  };
  return { doc, lines: { linePos }, start: 0 };
}
