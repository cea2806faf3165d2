// Leader election for the server's own controllers whose work must happen once across replicas
// (upstream runs them in kube-controller-manager under leader election): the namespace controller,
// the StorageVersionMigration controller, the garbage collector. A controller is handed to the
// elector as a factory; while this process holds the lead for the controller's name, one instance
// runs; when the lead is lost it is stopped, and a fresh one is made when the lead comes back.
//
// Backends: `AlwaysLeader` for sqlite and memory (one process owns the store: it always leads);
// `EtcdLeaderElector` (leader-election-etcd.ts) for etcd, through an etcd lease; `leaderElectorFor`
// (leader-election-for-storage.ts) picks one for a store.

/** What an elector runs: the controllers already have this shape. */
export interface ElectedController {
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

export interface LeaderElector {
  /** Who this process is in the election records (host, pid, random suffix). */
  readonly identity: string;
  /**
   * Runs a controller made by `make` while this process leads `name` (one leader per name among the
   * replicas sharing the store). Registering a name twice is an error. Resolves after the first
   * attempt to lead (the controller started if it was won); the election goes on in the background.
   */
  run(name: string, make: () => ElectedController): Promise<void>;
  /** Whether this process leads `name` now. */
  isLeader(name: string): boolean;
  /** The running controller of `name`, while leading (for tests and shutdown). */
  controller(name: string): ElectedController | undefined;
  /** Stops every elected controller and gives up every lead, so that another replica takes over at once. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The controllers of one elector, started and stopped as the lead comes and goes. Transitions of a
 * name are chained, so a stop never overtakes the start it follows.
 */
export class ElectedControllers {
  private readonly factories = new Map<string, () => ElectedController>();
  private readonly running = new Map<string, ElectedController>();
  private readonly leading = new Set<string>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, Error>();

  constructor(private readonly log: (message: string) => void) {}

  register(name: string, make: () => ElectedController): void {
    if (this.factories.has(name)) throw new Error(`leader election: ${name} is already registered`);
    this.factories.set(name, make);
  }

  names(): string[] {
    return [...this.factories.keys()];
  }

  isLeader(name: string): boolean {
    return this.leading.has(name);
  }

  controller(name: string): ElectedController | undefined {
    return this.running.get(name);
  }

  /** Why the last start of `name` failed (cleared by a successful start). */
  startFailure(name: string): Error | undefined {
    return this.failures.get(name);
  }

  /** The lead of `name` was won (true) or lost (false); resolves once the controller started or stopped. */
  set(name: string, lead: boolean): Promise<void> {
    if (lead === this.leading.has(name)) return this.chains.get(name) ?? Promise.resolve();
    if (lead) this.leading.add(name);
    else this.leading.delete(name);
    // a failed transition never blocks the next one
    const next = (this.chains.get(name) ?? Promise.resolve()).catch(() => undefined).then(() => (lead ? this.startOne(name) : this.stopOne(name)));
    this.chains.set(name, next);
    return next;
  }

  /** Stops every controller (the lead of each is given up by the caller). */
  async stopAll(): Promise<void> {
    await Promise.all(this.names().map((n) => this.set(n, false)));
  }

  private async startOne(name: string): Promise<void> {
    if (!this.leading.has(name) || this.running.has(name)) return;
    const make = this.factories.get(name);
    if (!make) return;
    let c: ElectedController;
    try {
      c = make();
    } catch (e) {
      this.log(`${name}: cannot be made: ${(e as Error).message}`);
      this.failures.set(name, e as Error);
      this.leading.delete(name);
      return;
    }
    this.running.set(name, c);
    this.log(`leading ${name}: started`);
    try {
      await c.start();
      this.failures.delete(name);
    } catch (e) {
      this.failures.set(name, e as Error);
      // The controller's own retries cover storage trouble; a start that throws is logged, and the
      // controller is stopped so that the next lead (or the next round, for etcd) makes a fresh one.
      this.log(`${name}: start failed: ${(e as Error).message}`);
      this.running.delete(name);
      this.leading.delete(name);
      await Promise.resolve(c.stop()).catch(() => undefined);
    }
  }

  private async stopOne(name: string): Promise<void> {
    const c = this.running.get(name);
    if (!c) return;
    this.running.delete(name);
    try {
      await c.stop();
    } catch (e) {
      this.log(`${name}: stop failed: ${(e as Error).message}`);
    }
    this.log(`lead of ${name} given up: stopped`);
  }
}

/** One process owns the store (sqlite's lock file, or memory): it always leads. */
export class AlwaysLeader implements LeaderElector {
  readonly identity: string;
  private readonly controllers: ElectedControllers;
  private stopped = false;

  constructor(o: { identity?: string; log?: (message: string) => void } = {}) {
    this.identity = o.identity ?? defaultIdentity();
    // Nothing to report when the lead never changes hands.
    this.controllers = new ElectedControllers(o.log ?? (() => undefined));
  }

  /** Rejects when the controller cannot start (nothing would retry it here), as a start-up failure. */
  async run(name: string, make: () => ElectedController): Promise<void> {
    this.controllers.register(name, make);
    if (this.stopped) return;
    await this.controllers.set(name, true);
    const failure = this.controllers.startFailure(name);
    if (failure) throw failure;
  }

  isLeader(name: string): boolean {
    return this.controllers.isLeader(name);
  }

  controller(name: string): ElectedController | undefined {
    return this.controllers.controller(name);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.controllers.stopAll();
  }
}

let counter = 0;

/** host_pid_random: unique per elector, readable in the election record. */
export function defaultIdentity(): string {
  const host = process.env.HOSTNAME || 'localhost';
  return `${host}_${process.pid}_${Math.random().toString(36).slice(2, 8)}${counter++ ? `_${counter}` : ''}`;
}
