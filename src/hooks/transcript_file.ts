/**
 * A transcript file, checked and read as a stream of lines: it must be a regular file (never a
 * device, a pipe or a folder: `/dev/zero` would never end) no larger than `TRANSCRIPT_MAX_BYTES`,
 * and it is read in chunks, one line at a time, so memory follows the longest line, not the
 * file. A line over `TRANSCRIPT_LINE_MAX_BYTES` is passed over without being held, and counted.
 */

import { type EnvSource, intVar } from "../kit/env.ts";
import { releaseGarbage } from "../kit/garbage.ts";

/** The limits a transcript is read under. */
export interface TranscriptLimits {
  /** Largest transcript file, in bytes (`TRANSCRIPT_MAX_BYTES`). */
  maxBytes: number;
  /** Longest line read, in bytes (`TRANSCRIPT_LINE_MAX_BYTES`); longer ones are skipped. */
  lineMaxBytes: number;
}

const MIB = 1024 * 1024;

/** Default limits: a day-long session is some tens of MiB; one line holds at most a few images. */
export const DEFAULT_TRANSCRIPT_LIMITS: TranscriptLimits = {
  maxBytes: 1024 * MIB,
  lineMaxBytes: 32 * MIB,
};

/** Reads the limits; throws naming a bad variable. */
export function loadTranscriptLimits(env: EnvSource): TranscriptLimits {
  const d = DEFAULT_TRANSCRIPT_LIMITS;
  return {
    maxBytes: intVar(env, "TRANSCRIPT_MAX_BYTES", d.maxBytes, 1024, 64 * 1024 * MIB),
    lineMaxBytes: intVar(env, "TRANSCRIPT_LINE_MAX_BYTES", d.lineMaxBytes, 1024, 1024 * MIB),
  };
}

/** What reading a transcript calls for each line: its text, or `undefined` for one too long. */
export type LineSink = (line: string | undefined) => void;

/** An open transcript, checked; `read` streams its lines once, then closes it. */
export interface TranscriptFile {
  path: string;
  /** Its size when opened, in bytes. */
  size: number;
  read(sink: LineSink): Promise<void>;
  close(): void;
}

/** Opens `path` after checking it is a regular file within `limits.maxBytes`; throws saying why. */
export async function openTranscript(
  path: string,
  limits: TranscriptLimits,
): Promise<TranscriptFile> {
  // Checked before opening: opening a FIFO would wait for a writer.
  const info = await Deno.stat(path).catch((error: Error) => {
    throw new Error(`cannot read the transcript ${path}: ${error.message}`);
  });
  checkInfo(path, info, limits);
  const file = await Deno.open(path, { read: true }).catch((error: Error) => {
    throw new Error(`cannot read the transcript ${path}: ${error.message}`);
  });
  try {
    // Checked again on what was opened: the path may have been swapped in between.
    checkInfo(path, await file.stat(), limits);
  } catch (error) {
    file.close();
    throw error;
  }
  let closed = false;
  const close = () => {
    if (!closed) file.close();
    closed = true;
  };
  return {
    path,
    size: info.size,
    close,
    async read(sink) {
      try {
        await readLines(file, limits, path, sink);
      } finally {
        close();
      }
    },
  };
}

function checkInfo(path: string, info: Deno.FileInfo, limits: TranscriptLimits): void {
  if (!info.isFile) {
    throw new Error(
      `the transcript ${path} is not a regular file (a device, pipe or folder); ` +
        "give the .jsonl file Claude Code wrote",
    );
  }
  if (info.size > limits.maxBytes) {
    throw new Error(
      `the transcript ${path} is ${info.size} bytes; at most ${limits.maxBytes} bytes ` +
        "(TRANSCRIPT_MAX_BYTES) are read",
    );
  }
}

/**
 * Read between full collections: V8 sizes its heap by how fast the process allocates, and a
 * conversion allocates (and drops) several times the file, so left alone it peaks far above what
 * is live: 120 MiB above a small transcript's peak for a 200 MiB one of 400 KB prompts.
 */
const COLLECT_EVERY_BYTES = 16 * 1024 * 1024;

/**
 * Splits the file's bytes into lines and decodes each (bad UTF-8 becomes U+FFFD). A file that
 * grows past the limit while it is read is refused, as it would have been when opened.
 */
async function readLines(
  file: Deno.FsFile,
  limits: TranscriptLimits,
  path: string,
  sink: LineSink,
): Promise<void> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(256 * 1024);
  let pieces: Uint8Array[] = [];
  let lineBytes = 0;
  let tooLong = false;
  let total = 0;
  let sinceCollect = 0;
  const end = () => {
    if (tooLong) sink(undefined);
    else if (lineBytes > 0) sink(decoder.decode(concat(pieces, lineBytes)));
    pieces = [];
    lineBytes = 0;
    tooLong = false;
  };
  for (;;) {
    const n = await file.read(buffer);
    if (n === null) break;
    total += n;
    sinceCollect += n;
    if (sinceCollect >= COLLECT_EVERY_BYTES) {
      sinceCollect = 0;
      releaseGarbage();
    }
    if (total > limits.maxBytes) {
      throw new Error(
        `the transcript ${path} grew past ${limits.maxBytes} bytes (TRANSCRIPT_MAX_BYTES) while it was read`,
      );
    }
    let at = 0;
    while (at < n) {
      const newline = buffer.subarray(at, n).indexOf(0x0a);
      const stop = newline < 0 ? n : at + newline;
      if (!tooLong) {
        if (lineBytes + (stop - at) > limits.lineMaxBytes) {
          tooLong = true;
          pieces = [];
        } else pieces.push(buffer.slice(at, stop));
      }
      lineBytes += stop - at;
      if (newline < 0) break;
      end();
      at = stop + 1;
    }
  }
  end();
}

function concat(pieces: readonly Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
