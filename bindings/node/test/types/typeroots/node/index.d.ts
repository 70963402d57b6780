// The part of @types/node that index.d.ts uses (Debian has no @types/node package): a Buffer.
declare class Buffer extends Uint8Array {
  toString(encoding?: string): string;
}
