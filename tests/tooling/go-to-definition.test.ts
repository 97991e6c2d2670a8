import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A call is declared once, beside what it does: from the UI, go-to-definition on
 * `client.engine.<call>` must land on that declaration (`<call>: defineQuery/defineCommand(`),
 * not on a mapped type or a forwarding handler. A client type that is not a homomorphic mapping
 * of the call table loses that link silently; this asks TypeScript's own language service.
 */
it('go-to-definition on client.engine.<call> in the UI lands on the call’s declaration beside its run', () => {
  const config = ts.getParsedCommandLineOfConfigFile(`${root}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const service = ts.createLanguageService({
    getScriptFileNames: () => config.fileNames.filter((f) => f.includes('/src/')),
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => (ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(f)!) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => config.options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
  const uses: [file: string, call: string, declaredIn: string][] = [
    ['src/ui/chat/composer.tsx', 'sendTurn', 'src/engine/leader/narrator.ts'],
    ['src/ui/chat/chat-scope.ts', 'undoRewind', 'src/engine/rewind/commands.ts'],
    ['src/ui/chat/drawer/memories-section.tsx', 'pinMemory', 'src/engine/story/commands.ts'],
    ['src/ui/chat/transcript-pages.ts', 'transcript', 'src/engine/queries/transcript.ts'],
  ];
  for (const [file, call, declaredIn] of uses) {
    const path = `${root}${file}`;
    const text = readFileSync(path, 'utf8');
    const at = text.indexOf(`engine.${call}(`);
    expect(at, `${file} calls engine.${call}`).toBeGreaterThan(-1);
    const [definition] = service.getDefinitionAtPosition(path, at + 'engine.'.length + 1) ?? [];
    expect(definition?.fileName.replace(root, ''), `go-to-definition on engine.${call} in ${file}`).toBe(declaredIn);
    const source = service.getProgram()!.getSourceFile(definition!.fileName)!;
    const line = source.text.split('\n')[source.getLineAndCharacterOfPosition(definition!.textSpan.start).line]!;
    expect(line).toMatch(new RegExp(`^\\s*${call}: define(Query|Command)\\(`));
  }
}, 60_000);
