// The WAL checkpointer's thread (see wal-checkpointer.ts). Plain JavaScript so that it loads in a
// worker thread without a TypeScript loader, wherever the storage runs (server, tests, benches).
//
// Its own connection runs PASSIVE checkpoints: they copy committed WAL pages into the database file
// and fsync it without blocking the writer, so that work and its I/O leave the event loop. Messages:
// 'checkpoint' (run one now), 'stop' (close the connection and exit).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const db = new Database(workerData.path, { timeout: 0 });
db.pragma('synchronous = NORMAL');

parentPort.on('message', (msg) => {
  if (msg === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  let result;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    result = { ok: true };
  } catch (e) {
    result = { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort.postMessage(result);
});
