// A self-signed serving certificate for when no --tls-cert-file is given (as upstream's
// kube-apiserver does in its --cert-dir). kubectl sends bearer tokens only over TLS, so the
// default server speaks HTTPS; the kubeconfig trusts this certificate.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface ServingCert {
  cert: Buffer;
  key: Buffer;
  certFile: string;
}

/** Loads `<dir>/apiserver.crt|key`, creating them on first use (valid ten years; SANs localhost, loopback, `address`). */
export async function ensureServingCert(dir: string, address: string): Promise<ServingCert> {
  const certFile = join(dir, 'apiserver.crt');
  const keyFile = join(dir, 'apiserver.key');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    const altNames: { type: 2 | 7; value?: string; ip?: string }[] = [
      { type: 2, value: 'localhost' },
      { type: 7, ip: '127.0.0.1' },
      { type: 7, ip: '::1' },
    ];
    if (isIP(address) && address !== '0.0.0.0' && address !== '::' && address !== '127.0.0.1' && address !== '::1') altNames.push({ type: 7, ip: address });
    else if (!isIP(address) && address !== 'localhost') altNames.push({ type: 2, value: address });
    const notAfterDate = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
    // Loaded only here: the X.509 library takes ~0.2 s to load, and most starts reuse the certificate.
    const { generate } = await import('selfsigned');
    const pems = await generate([{ name: 'commonName', value: 'clusterspec-apiserver' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate,
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames },
      ],
    });
    // Replicas started together on one data directory: the first to create the key writes the pair
    // (the certificate renamed into place whole); the others wait for it and use that one.
    try {
      writeFileSync(keyFile, pems.private, { mode: 0o600, flag: 'wx' });
      writeFileSync(`${certFile}.${process.pid}.tmp`, pems.cert);
      renameSync(`${certFile}.${process.pid}.tmp`, certFile);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      for (let i = 0; i < 100 && !existsSync(certFile); i++) await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { cert: readFileSync(certFile), key: readFileSync(keyFile), certFile };
}
