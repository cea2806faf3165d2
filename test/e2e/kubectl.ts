// Running the real kubectl against a test server (e2e tests skip, with a visible message, where it is absent).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

export const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One kubectl run with the server's kubeconfig and its own discovery cache; never rejects. */
export function runKubectl(kubeconfig: string, cacheDir: string, args: string[], timeoutMs = 30_000): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile(KUBECTL as string, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}
