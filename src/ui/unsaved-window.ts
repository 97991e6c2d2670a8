import { createSignal, onCleanup } from 'solid-js';
import { backupFileName, downloadBlob } from './backup-file.ts';
import type { AppClient } from './engine-client.ts';

/**
 * A window that cannot save (no OPFS: a private window, a browser without storage support) keeps
 * its stories only until it closes. This offers the way out: "Export before closing" saves a backup
 * of what was written here (loadable in any window that can save), and closing the window while
 * something written is not yet exported makes the browser ask first.
 */
export function createUnsavedWindow(client: AppClient) {
  const [unexported, setUnexported] = createSignal(false);
  const [exporting, setExporting] = createSignal(false);
  const [exportError, setExportError] = createSignal<string | null>(null);
  const inMemory = () => client.status().storage === 'memory';
  onCleanup(client.onChange(() => inMemory() && setUnexported(true)));
  const warn = (event: BeforeUnloadEvent) => {
    if (!inMemory() || !unexported()) return;
    // The browser's own "Leave site?" question: the only one a page may ask as it closes.
    event.preventDefault();
    event.returnValue = '';
  };
  window.addEventListener('beforeunload', warn);
  onCleanup(() => window.removeEventListener('beforeunload', warn));
  const exportNow = async () => {
    setExporting(true);
    setExportError(null);
    try {
      downloadBlob(await client.admin.backupFile(), backupFileName());
      setUnexported(false);
    } catch (error) {
      setExportError(error instanceof Error ? error.message : String(error));
    } finally {
      setExporting(false);
    }
  };
  return { unexported, exporting, exportError, exportNow };
}
