// A minimal protobuf wire writer (varint, 64-bit and length-delimited fields), enough to encode
// proto3 messages by hand. Zero scalars are left out, as proto3 does for fields without presence;
// `*Always` variants write them anyway for oneof members, which have presence.

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;

export class ProtoWriter {
  private readonly chunks: Buffer[] = [];
  private pending: number[] = [];
  private size = 0;

  private flush(): void {
    if (this.pending.length === 0) return;
    const b = Buffer.from(this.pending);
    this.chunks.push(b);
    this.size += b.length;
    this.pending = [];
  }

  private varint(n: number | bigint): void {
    // negative int64 values are ten-byte two's complement on the wire
    let v = typeof n === 'bigint' ? BigInt.asUintN(64, n) : n >= 0 && Number.isSafeInteger(n) ? n : BigInt.asUintN(64, BigInt(Math.trunc(n)));
    if (typeof v === 'number') {
      while (v > 0x7f) {
        this.pending.push((v % 128) | 0x80);
        v = Math.floor(v / 128);
      }
      this.pending.push(v);
      return;
    }
    while (v > 0x7fn) {
      this.pending.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.pending.push(Number(v));
  }

  private tag(no: number, wire: number): void {
    this.varint(no * 8 + wire);
  }

  private raw(b: Buffer): void {
    this.flush();
    this.chunks.push(b);
    this.size += b.length;
  }

  string(no: number, s: string | undefined): this {
    if (s) this.stringAlways(no, s);
    return this;
  }

  stringAlways(no: number, s: string): this {
    return this.bytesAlways(no, Buffer.from(s, 'utf8'));
  }

  strings(no: number, values: readonly string[]): this {
    for (const s of values) this.stringAlways(no, s);
    return this;
  }

  bool(no: number, b: boolean | undefined): this {
    if (b) this.boolAlways(no, b);
    return this;
  }

  boolAlways(no: number, b: boolean): this {
    this.tag(no, WIRE_VARINT);
    this.varint(b ? 1 : 0);
    return this;
  }

  int64(no: number, n: number | undefined): this {
    if (n) {
      this.tag(no, WIRE_VARINT);
      this.varint(n);
    }
    return this;
  }

  double(no: number, x: number | undefined): this {
    // proto3 leaves out +0 only; -0 has a different bit pattern and is written
    if (x === undefined || Object.is(x, 0)) return this;
    this.tag(no, WIRE_I64);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(x);
    this.raw(b);
    return this;
  }

  bytesAlways(no: number, b: Buffer): this {
    this.tag(no, WIRE_LEN);
    this.varint(b.length);
    this.raw(b);
    return this;
  }

  /** A nested message; written even when empty (a set message field has presence). */
  message(no: number, m: ProtoWriter): this {
    return this.bytesAlways(no, m.finish());
  }

  finish(): Buffer {
    this.flush();
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
  }
}
