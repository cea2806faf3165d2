// The generated types compile under strict, accept the good objects and reject the bad ones
// (every `@ts-expect-error` in fixtures/bad-objects.ts must be needed).
import { join } from 'node:path';
import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

describe('generated types', () => {
  it('type-check the fixtures under strict', () => {
    const project = new Project({ tsConfigFilePath: join(root, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
    project.addSourceFilesAtPaths([join(root, 'out', 'types', 'index.ts'), join(import.meta.dirname, 'fixtures', '*.ts')]);
    const diagnostics = project.getPreEmitDiagnostics().map((d) => {
      const file = d.getSourceFile()?.getFilePath() ?? '';
      const message = d.getMessageText();
      return `${file}:${d.getLineNumber() ?? 0}: ${typeof message === 'string' ? message : message.getMessageText()}`;
    });
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
