// The site's stylesheet: system fonts only (nothing fetched), light and dark by the reader's setting.
export const docsCss = `:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;--link:#0550ae;--hit:#fff8c5;--req:#cf222e;--imm:#8250df;--gate:#9a6700;--dep:#6e7781}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#161b22;--line:#30363d;--link:#58a6ff;--hit:#3b2e00;--req:#ff7b72;--imm:#d2a8ff;--gate:#d29922;--dep:#9198a1}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow:auto;margin:4px 0}
.top{position:sticky;top:0;z-index:2;display:flex;gap:12px;align-items:center;padding:8px 16px;background:var(--panel);border-bottom:1px solid var(--line)}
.home{font-weight:600}
#q{flex:1;max-width:560px;padding:5px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);font:inherit}
#results{position:absolute;top:100%;left:16px;right:16px;max-width:760px;max-height:70vh;overflow:auto;margin:0;padding:6px 10px 6px 32px;background:var(--bg);border:1px solid var(--line);border-radius:6px;box-shadow:0 8px 24px rgba(0,0,0,.15)}
#results span{color:var(--muted);font-size:13px}
main{max-width:1100px;margin:0 auto;padding:8px 16px 48px}
h1{margin:12px 0 4px}h2{margin:28px 0 8px;border-bottom:1px solid var(--line)}
table{border-collapse:collapse;margin:6px 0;width:100%}
th,td{text-align:left;vertical-align:top;border-bottom:1px solid var(--line);padding:4px 8px}
.meta dt{float:left;clear:left;width:150px;color:var(--muted)}.meta dd{margin:0 0 2px 160px}
.tools{margin:8px 0}
button{font:inherit;padding:3px 10px;border:1px solid var(--line);border-radius:6px;background:var(--panel);color:var(--fg);cursor:pointer}
[id]{scroll-margin-top:64px}
.tree .f{border-left:2px solid var(--line);padding:4px 0 4px 10px;margin:4px 0}
.f.hit>.h{background:var(--hit)}
.f>.h .n{font:600 14px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--fg)}
.t{color:var(--muted);font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.b{display:inline-block;margin-left:6px;padding:0 6px;border:1px solid;border-radius:10px;font-size:12px}
.req{color:var(--req)}.imm{color:var(--imm)}.gate{color:var(--gate)}.dep{color:var(--dep)}
.d{font-size:14px}.d p{margin:2px 0}
.d .p{color:var(--muted);font-size:12px}
.d dl{margin:2px 0;display:grid;grid-template-columns:max-content 1fr;gap:0 10px}
.d dt{color:var(--muted)}.d dd{margin:0}
.rules{margin:4px 0;padding-left:18px}.rules li{margin:3px 0}
.rk{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--imm)}
.cel{white-space:pre-wrap;word-break:break-all}
.celm,.note,.rec{color:var(--muted);font-size:13px}
details.kids>summary{cursor:pointer;color:var(--link);font-size:13px}
details.kids{margin-left:4px}
`;
