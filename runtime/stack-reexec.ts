// The first import of runtime/cli.ts: makes the server process run with the raised V8 stack of
// stack-size.ts. Started without `--stack-size`, the process starts itself once more with it (same
// node flags, script and arguments, inherited stdio), relays SIGINT/SIGTERM/SIGHUP to that child,
// exits with the child's exit code (or dies of its signal), and never runs the server itself: this
// module's top-level await never settles there, so the body of cli.ts never runs. The child, in turn,
// dies at once if this parent is killed (kill -9 leaves no server behind): it watches the IPC channel.
// Started with `--stack-size` (the re-executed child, the e2e harness, or a user's own choice), the
// module does nothing else. npm start preloads it (--import), so that the parent never loads the
// server's modules (measured: 0.25 s CPU and 76 MB for the parent, against 0.6 s and 100 MB when
// cli.ts imports it); other ways in (node --import tsx runtime/cli.ts) reach it as cli.ts's first import.
// Never import it from a test: it re-executes the importing process.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chooseStackSize, hasStackSizeFlag, osStackLimitBytes, withoutPreload } from './stack-size.ts';

/** Set in the child's environment: it never re-executes itself again. */
const CHILD_ENV = 'CLUSTERSPEC_STACK_REEXEC';
const RELAYED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function watchParent(): void {
  delete process.env[CHILD_ENV]; // not inherited by processes this one starts
  const channel = process.channel;
  // No channel: the parent died before this process came up.
  if (!channel) {
    process.kill(process.pid, 'SIGKILL');
    return;
  }
  channel.unref(); // the channel never keeps the server alive
  // The parent waits for this process, so the channel closes first only when the parent was killed.
  process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
}

const THIS_FILE = fileURLToPath(import.meta.url);

function reexec(kb: number): Promise<never> {
  const child = spawn(process.execPath, [...withoutPreload(process.execArgv, THIS_FILE), `--stack-size=${kb}`, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [CHILD_ENV]: '1' },
  });
  const relay = (signal: NodeJS.Signals): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const s of RELAYED_SIGNALS) process.on(s, relay);
  child.once('error', (e) => {
    process.stderr.write(`error: cannot start the server process: ${e.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    if (signal) {
      for (const s of RELAYED_SIGNALS) process.off(s, relay);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
  return new Promise<never>(() => undefined);
}

if (hasStackSizeFlag(process.execArgv)) {
  if (process.env[CHILD_ENV] === '1') watchParent();
} else if (process.env[CHILD_ENV] !== '1') {
  const choice = chooseStackSize(osStackLimitBytes());
  if (choice.note) process.stderr.write(`warning: ${choice.note}\n`);
  if (choice.kind === 'raise') await reexec(choice.kb);
}
