// The thread that decodes large YAML bodies for yaml-offload.ts: decodeYaml as the request thread
// runs it, answered per message. The `yaml` library needs about 1.5 µs per byte (a 1.2 MB body of
// 100,000 keys: 1.8 s), which would otherwise stall the server's event loop.

import { parentPort } from 'node:worker_threads';
import { DecodeError } from './decode-error.ts';
import { decodeYaml } from './decode.ts';
import type { OffloadReply, OffloadRequest } from './yaml-offload.ts';

const port = parentPort;
if (!port) throw new Error('yaml-decode.worker.ts runs as a worker thread');

port.on('message', (req: OffloadRequest) => {
  let reply: OffloadReply;
  try {
    const { value, duplicates } = decodeYaml(req.text);
    reply = { id: req.id, kind: 'decoded', value, duplicates };
  } catch (e) {
    // any other failure is left to the request thread, which decodes the body again itself
    reply = e instanceof DecodeError ? { id: req.id, kind: 'refused', format: e.format, failure: e.failure, message: e.message } : { id: req.id, kind: 'failed' };
  }
  port.postMessage(reply);
});
