// One etcd Watch stream carrying every watch of an EtcdStorage, with watch IDs chosen here (etcd
// 3.4's WatchCreateRequest.watch_id). The etcd3 package's own watch manager is not used: it matches
// creations to responses by order, throws out of the stream (crashing the process) on a response for
// a watch it no longer knows, which the cancel of a watch etcd already cancelled produces, and it
// resumes silently after a broken stream, where the storage interface ends the watch instead.

import type { IDuplexStream, IWatchCreateRequest, IWatchRequest, IWatchResponse, WatchClient } from 'etcd3';

export interface WatchStreamListener {
  /** Events or a progress notification for this watch. */
  onResponse(res: IWatchResponse): void;
  /** etcd cancelled the watch (compact_revision set when it fell behind a compaction). */
  onCancel(res: IWatchResponse): void;
  /** The stream broke: this watch delivers nothing more. */
  onBroken(err: unknown): void;
}

interface Entry {
  readonly listener: WatchStreamListener;
  /** Pending until etcd confirms (created) or refuses (canceled) the watch. */
  created?: { resolve: () => void; reject: (e: unknown) => void };
}

export class EtcdWatchStream {
  private stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
  private opening: Promise<IDuplexStream<IWatchRequest, IWatchResponse>> | undefined;
  private readonly entries = new Map<string, Entry>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly client: WatchClient) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * Creates a watch; resolves once etcd confirmed it, with its cancel function. Rejects with the
   * response when etcd refuses it at once (compact_revision set), or with the stream's error.
   */
  async create(request: IWatchCreateRequest, listener: WatchStreamListener): Promise<() => void> {
    const stream = await this.open();
    const id = String(this.nextId++);
    const entry: Entry = { listener };
    const confirmed = new Promise<void>((resolve, reject) => (entry.created = { resolve, reject }));
    this.entries.set(id, entry);
    stream.write({ create_request: { ...request, watch_id: id } });
    await confirmed;
    return () => this.cancel(id);
  }

  /** Stops one watch: nothing more is delivered for it, whatever etcd still sends. */
  private cancel(id: string): void {
    if (!this.entries.delete(id)) return;
    this.stream?.write({ cancel_request: { watch_id: id } });
  }

  close(): void {
    this.closed = true;
    this.entries.clear();
    this.stream?.cancel();
    this.stream = undefined;
  }

  private open(): Promise<IDuplexStream<IWatchRequest, IWatchResponse>> {
    if (this.closed) return Promise.reject(new Error('watch stream closed'));
    if (this.stream) return Promise.resolve(this.stream);
    this.opening ??= this.client.watch().then(
      (stream) => {
        this.opening = undefined;
        if (this.closed) {
          stream.cancel();
          throw new Error('watch stream closed');
        }
        this.stream = stream;
        let broken = false;
        const breakAll = (err: unknown): void => {
          if (broken) return;
          broken = true;
          if (this.stream === stream) this.stream = undefined;
          const entries = [...this.entries.values()];
          this.entries.clear();
          for (const e of entries) {
            if (e.created) e.created.reject(err);
            else e.listener.onBroken(err);
          }
        };
        stream.on('data', (res) => this.dispatch(res));
        stream.on('error', (err) => breakAll(err));
        stream.on('end', () => breakAll(new Error('etcd watch stream ended')));
        return stream;
      },
      (err: unknown) => {
        this.opening = undefined;
        throw err;
      },
    );
    return this.opening;
  }

  private dispatch(res: IWatchResponse): void {
    const entry = this.entries.get(String(res.watch_id));
    // a watch cancelled here, or a progress response for the whole stream (watch_id -1)
    if (!entry) return;
    if (entry.created) {
      const created = entry.created;
      if (res.canceled) {
        this.entries.delete(String(res.watch_id));
        created.reject(res);
        return;
      }
      if (res.created) {
        entry.created = undefined;
        created.resolve();
        return;
      }
    }
    if (res.canceled) {
      this.entries.delete(String(res.watch_id));
      entry.listener.onCancel(res);
      return;
    }
    if (res.created) return;
    entry.listener.onResponse(res);
  }
}
