/**
 * Self-signed serving certificates built with node:crypto only (no openssl): an ECDSA P-256 key
 * and a minimal X.509 v3 certificate, DER-encoded by hand. Used by the metrics server when secure
 * serving is on and no certificate is given (Kubebuilder's default), and by tests; a small CA
 * (a root plus the serving certificates it signs) serves kubeforge/testing's webhook installation.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import net from 'node:net';

/** A PEM certificate and its PEM private key. */
export interface SelfSignedCert {
  cert: string;
  key: string;
}

/** Options of {@link generateSelfSignedCert}. */
export interface SelfSignedCertOptions {
  /** Subject common name (default: the first host). */
  commonName?: string;
  /** DNS names and IP addresses for subjectAltName (default: localhost, 127.0.0.1, ::1). */
  hosts?: string[];
  /** Validity in days (default 365). */
  days?: number;
  /** An existing private key to certify (PEM); default: a new P-256 key. */
  key?: string;
}

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  while (n > 0) {
    bytes.unshift(n & 0xff);
    n >>= 8;
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
};
const seq = (...parts: Buffer[]) => tlv(0x30, ...parts);
const set = (...parts: Buffer[]) => tlv(0x31, ...parts);
const octets = (b: Buffer) => tlv(0x04, b);
const bitString = (b: Buffer) => tlv(0x03, Buffer.from([0]), b);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  let v = b.subarray(i);
  if (v[0] & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return tlv(0x02, v);
}
function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0] + parts[1]];
  for (const p of parts.slice(2)) {
    const stack = [p & 0x7f];
    let v = p >>> 7;
    while (v > 0) {
      stack.unshift((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.push(...stack);
  }
  return tlv(0x06, Buffer.from(out));
}
function time(d: Date): Buffer {
  const iso = d.toISOString();
  const y = d.getUTCFullYear();
  const compact = `${iso.replace(/[-:T]/g, '').slice(0, 14)}Z`; // YYYYMMDDHHMMSSZ
  // UTCTime for 1950..2049, GeneralizedTime after (RFC 5280).
  return y < 2050 ? tlv(0x17, Buffer.from(compact.slice(2), 'ascii')) : tlv(0x18, Buffer.from(compact, 'ascii'));
}
function ipBytes(ip: string): Buffer {
  if (net.isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand "::".
  const [head, tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.concat(groups.map((g) => Buffer.from([(parseInt(g, 16) >> 8) & 0xff, parseInt(g, 16) & 0xff])));
}

/** The subject public key bits of an SPKI (for the key identifier, RFC 5280 4.2.1.2 method 1). */
function keyIdentifier(spki: Buffer): Buffer {
  // SubjectPublicKeyInfo ::= SEQUENCE { algorithm SEQUENCE, subjectPublicKey BIT STRING }
  const skip = (buf: Buffer, at: number): { body: number; end: number } => {
    let n = buf[at + 1];
    let body = at + 2;
    if (n & 0x80) {
      const count = n & 0x7f;
      n = 0;
      for (let i = 0; i < count; i++) n = (n << 8) | buf[body + i];
      body += count;
    }
    return { body, end: body + n };
  };
  const outer = skip(spki, 0);
  const alg = skip(spki, outer.body);
  const bits = skip(spki, alg.end);
  return createHash('sha1')
    .update(spki.subarray(bits.body + 1, bits.end))
    .digest();
}

interface KeyMaterial {
  privateKey: KeyObject;
  keyPem: string;
  spki: Buffer;
  sigAlg: Buffer;
}

function keyMaterial(pem: string | undefined, what: string): KeyMaterial {
  let privateKey: KeyObject;
  let keyPem: string;
  if (pem) {
    privateKey = createPrivateKey(pem);
    keyPem = pem;
  } else {
    const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    privateKey = pair.privateKey;
    keyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  }
  const keyType = privateKey.asymmetricKeyType;
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' }) as Buffer;
  const sigAlg =
    keyType === 'ec'
      ? seq(oid('1.2.840.10045.4.3.2')) // ecdsa-with-SHA256
      : keyType === 'rsa'
        ? seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00])) // sha256WithRSAEncryption, NULL
        : undefined;
  if (!sigAlg) throw new Error(`${what}: unsupported key type ${keyType} (use an EC or RSA key)`);
  return { privateKey, keyPem, spki, sigAlg };
}

const distinguishedName = (cn: string) => seq(set(seq(oid('2.5.4.3'), utf8(cn))));

function pemCertificate(der: Buffer): string {
  const b64 = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

/** Builds and signs one X.509 v3 certificate. */
function issue(o: {
  subject: KeyMaterial;
  subjectName: string;
  issuer: KeyMaterial;
  issuerName: string;
  days: number;
  extensions: Buffer[];
}): string {
  const now = Date.now();
  const notBefore = new Date(now - 60 * 60 * 1000);
  const notAfter = new Date(now + o.days * 24 * 60 * 60 * 1000);
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    o.issuer.sigAlg,
    distinguishedName(o.issuerName),
    seq(time(notBefore), time(notAfter)),
    distinguishedName(o.subjectName),
    o.subject.spki,
    tlv(0xa3, seq(...o.extensions)),
  );
  const signature = sign('sha256', tbs, o.issuer.privateKey);
  return pemCertificate(seq(tbs, o.issuer.sigAlg, bitString(signature)));
}

function subjectAltName(hosts: string[]): Buffer {
  const san = seq(...hosts.map((h) => (net.isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii')))));
  return seq(oid('2.5.29.17'), octets(san));
}

/**
 * Creates a self-signed certificate (also usable as its own CA) for the given hosts. Throws on an
 * invalid key. Deterministic only in structure: serial number and dates differ per call.
 */
export function generateSelfSignedCert(options: SelfSignedCertOptions = {}): SelfSignedCert {
  const hosts = options.hosts?.length ? options.hosts : ['localhost', '127.0.0.1', '::1'];
  const key = keyMaterial(options.key, 'generateSelfSignedCert');
  const cn = options.commonName ?? hosts[0];
  return selfIssued(key, cn, options.days, [
    seq(oid('2.5.29.19'), bool(true), octets(seq(bool(true)))), // basicConstraints: CA (self-signed root), critical
    seq(oid('2.5.29.15'), bool(true), octets(tlv(0x03, Buffer.from([0x02, 0xa4])))), // keyUsage: digitalSignature, keyEncipherment, keyCertSign
    seq(oid('2.5.29.37'), octets(seq(oid('1.3.6.1.5.5.7.3.1')))), // extKeyUsage: serverAuth
    subjectAltName(hosts),
  ]);
}

/** Options of {@link generateCACert}. */
export interface CACertOptions {
  /** Subject common name (default 'kubeforge-ca'). */
  commonName?: string;
  /** Validity in days (default 365). */
  days?: number;
  /** An existing private key (PEM); default: a new P-256 key. */
  key?: string;
}

/**
 * Creates a self-signed certificate authority: a root that may sign certificates only
 * (basicConstraints CA, keyUsage keyCertSign and cRLSign, no subjectAltName). Sign serving
 * certificates with {@link generateSignedCert}. Throws on an invalid or unsupported key.
 */
export function generateCACert(options: CACertOptions = {}): SelfSignedCert {
  const key = keyMaterial(options.key, 'generateCACert');
  const cn = options.commonName ?? 'kubeforge-ca';
  const ski = keyIdentifier(key.spki);
  return selfIssued(key, cn, options.days, [
    seq(oid('2.5.29.19'), bool(true), octets(seq(bool(true)))), // basicConstraints: CA, critical
    seq(oid('2.5.29.15'), bool(true), octets(tlv(0x03, Buffer.from([0x01, 0x86])))), // keyUsage: digitalSignature, keyCertSign, cRLSign
    seq(oid('2.5.29.14'), octets(octets(ski))), // subjectKeyIdentifier
  ]);
}

/** A certificate the key issues to itself (subject and issuer the same name), valid `days` (default 365). */
function selfIssued(key: KeyMaterial, cn: string, days: number | undefined, extensions: Buffer[]): SelfSignedCert {
  const cert = issue({ subject: key, subjectName: cn, issuer: key, issuerName: cn, days: days ?? 365, extensions });
  return { cert, key: key.keyPem };
}

/**
 * Creates a serving certificate for `options.hosts` (default localhost, 127.0.0.1, ::1) signed by
 * `ca` (from {@link generateCACert}): not a CA, keyUsage digitalSignature and keyEncipherment,
 * extKeyUsage serverAuth, its issuer and authorityKeyIdentifier taken from the CA. A client that
 * trusts the CA certificate accepts it. Throws when the CA's certificate or key cannot be read.
 */
export function generateSignedCert(ca: SelfSignedCert, options: SelfSignedCertOptions = {}): SelfSignedCert {
  const hosts = options.hosts?.length ? options.hosts : ['localhost', '127.0.0.1', '::1'];
  const caX509 = new X509Certificate(ca.cert);
  if (!caX509.ca)
    throw new Error('generateSignedCert: the given CA certificate is not a CA (basicConstraints CA is false)');
  const issuerKey = keyMaterial(ca.key, 'generateSignedCert');
  if (!caX509.checkPrivateKey(issuerKey.privateKey))
    throw new Error('generateSignedCert: the CA key does not match the CA certificate');
  const issuerCN = /^CN=(.*)$/m.exec(caX509.subject)?.[1];
  if (issuerCN === undefined) throw new Error('generateSignedCert: the CA certificate has no common name');
  const key = keyMaterial(options.key, 'generateSignedCert');
  const aki = keyIdentifier(issuerKey.spki);
  const cert = issue({
    subject: key,
    subjectName: options.commonName ?? hosts[0],
    issuer: issuerKey,
    issuerName: issuerCN,
    days: options.days ?? 365,
    extensions: [
      seq(oid('2.5.29.19'), bool(true), octets(seq())), // basicConstraints: not a CA, critical
      seq(oid('2.5.29.15'), bool(true), octets(tlv(0x03, Buffer.from([0x05, 0xa0])))), // keyUsage: digitalSignature, keyEncipherment
      seq(oid('2.5.29.37'), octets(seq(oid('1.3.6.1.5.5.7.3.1')))), // extKeyUsage: serverAuth
      seq(oid('2.5.29.35'), octets(seq(tlv(0x80, aki)))), // authorityKeyIdentifier [0] keyIdentifier
      subjectAltName(hosts),
    ],
  });
  return { cert, key: key.keyPem };
}
