/**
 * The JSON body of a Streamable HTTP answer. A toolset that gives the same answer again and again
 * (`get_state` of an unchanged project: some 20 KB with 500 follow-ups, to every client) hands
 * out one frozen result object; its JSON, as UTF-8 bytes, is kept for as long as that object
 * lives and copied into each answer. Serialising it anew and transcoding the two-byte string (its
 * headings hold CJK characters) to UTF-8 cost ~80 µs per answer. Any other large text is
 * encoded once by its content (`EncodedTexts`). The bytes are exactly what `JSON.stringify`
 * writes.
 */

import { EncodedTexts } from "./encoded_texts.ts";

/** Results whose JSON is shorter than this are cheap to write and not kept. */
const MIN_CHARS = 4096;

const encoder = new TextEncoder();
const RESULT_PREFIX = encoder.encode('{"result":');

/** Encodes the answers of one process, keeping what is answered again. */
export class AnswerBodies {
  /** The UTF-8 JSON of frozen results, or `null` for one too small to keep. */
  readonly #frozen = new WeakMap<object, Uint8Array<ArrayBuffer> | null>();
  readonly #texts = new EncodedTexts();

  /**
   * `message` ready to be written: its large texts' encodings spliced in, unless its result is
   * frozen (`body` then copies the result's kept bytes). `message` itself is never changed.
   */
  prepare(message: unknown): unknown {
    return frozenResultOf(message) === undefined ? this.#texts.prepare(message) : message;
  }

  /** The body answering one POST: its only response, or the list of its responses. */
  body(responses: readonly unknown[]): string | Uint8Array<ArrayBuffer> {
    if (responses.length === 1) {
      const bytes = this.#kept(responses[0]);
      if (bytes !== undefined) return bytes;
      return JSON.stringify(responses[0]);
    }
    return JSON.stringify(responses);
  }

  /**
   * The answer as bytes when its result is frozen and large, built from the kept JSON of the
   * result; only for the SDK's shape `{ result, jsonrpc, id }` in that order, so that the bytes
   * are those `JSON.stringify` would write.
   */
  #kept(message: unknown): Uint8Array<ArrayBuffer> | undefined {
    const result = frozenResultOf(message);
    if (result === undefined) return undefined;
    const { jsonrpc, id } = message as { jsonrpc: unknown; id: unknown };
    const keys = Object.keys(message as object);
    if (keys.length !== 3 || keys[0] !== "result" || keys[1] !== "jsonrpc" || keys[2] !== "id") {
      return undefined;
    }
    if (typeof jsonrpc !== "string" || (typeof id !== "string" && typeof id !== "number")) {
      return undefined;
    }
    let json = this.#frozen.get(result);
    if (json === undefined) {
      const text = JSON.stringify(result);
      json = text.length < MIN_CHARS ? null : encoder.encode(text);
      this.#frozen.set(result, json);
    }
    if (json === null) return undefined;
    const tail = encoder.encode(
      `,"jsonrpc":${JSON.stringify(jsonrpc)},"id":${JSON.stringify(id)}}`,
    );
    const bytes = new Uint8Array(RESULT_PREFIX.length + json.length + tail.length);
    bytes.set(RESULT_PREFIX);
    bytes.set(json, RESULT_PREFIX.length);
    bytes.set(tail, RESULT_PREFIX.length + json.length);
    return bytes;
  }
}

/**
 * The result of a response message when it is a frozen object. A toolset freezes a result only
 * when it answers that same object again and never changes it, down to its last text.
 */
function frozenResultOf(message: unknown): object | undefined {
  const result = (message as { result?: unknown } | null)?.result;
  return typeof result === "object" && result !== null && Object.isFrozen(result)
    ? result
    : undefined;
}
