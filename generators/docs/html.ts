// HTML escaping and the page shell every page of the docs site shares (no external resources).

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** An href attribute value: escaped; `#` fragments keep their characters (ids are field paths). */
export const attr = esc;

export interface PageShell {
  title: string;
  /** From this page to the site root ('' or '../'). */
  root: string;
  body: string;
  /** Load the search index eagerly (the index page) rather than on the first search. */
  eagerSearchIndex?: boolean;
}

export function page(p: PageShell): string {
  const index = p.eagerSearchIndex ? `<script src="${p.root}search-index.js"></script>\n` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(p.title)}</title>
<link rel="stylesheet" href="${p.root}docs.css">
<link rel="icon" href="data:,">
</head>
<body data-root="${p.root}">
<header class="top"><a class="home" href="${p.root}index.html">API reference</a>
<input id="q" type="search" placeholder="Search kinds and fields (e.g. volumeHandle)" autocomplete="off" aria-label="Search kinds and fields">
<ol id="results" hidden></ol></header>
<main>
${p.body}
</main>
${index}<script src="${p.root}docs.js"></script>
</body>
</html>
`;
}
