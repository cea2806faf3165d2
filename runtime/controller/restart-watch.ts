// A controller's watch ended (storage closed, or its revision compacted away): open it again after a
// short pause, unless the controller stopped. The reopened watch's initial events bring the state back.

export function restartWatchLater(o: { stopped: () => boolean; reopen: () => Promise<void>; log: (message: string) => void; delayMs?: number }): void {
  if (o.stopped()) return;
  setTimeout(() => {
    if (o.stopped()) return;
    o.reopen().catch((e: unknown) => o.log(`watch restart: ${(e as Error).message}`));
  }, o.delayMs ?? 500).unref(); // never keeps the process alive
}
