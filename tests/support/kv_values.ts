/** Test values for code that stores or moves arbitrary KV entries. */

/** A value of every type KV can hold. */
export function everyType(): Record<string, unknown> {
  return {
    text: "héllo ✓ 𝄞",
    int: 42,
    float: -1.5,
    specials: [NaN, Infinity, -Infinity, -0],
    big: -12345678901234567890n,
    bytes: new Uint8Array([0, 1, 254, 255]),
    date: new Date("2026-12-01T10:00:00.123Z"),
    badDate: new Date(NaN),
    yes: true,
    no: false,
    nothing: null,
    missing: undefined,
    nested: { deep: [{ a: [1, [2, { b: "c" }]] }], empty: {}, none: [] },
    map: new Map<unknown, unknown>([["k", 1], [2, new Date(0)]]),
    set: new Set([1, "two", 3n]),
    regexp: /a+b/gi,
    buffer: new Uint8Array([9, 8, 7]).buffer,
    ints: new Int32Array([-1, 2, 3]),
    floats: new Float64Array([0.5, -2]),
    tagLike: { $bigint: "1" },
    dollars: { $a: 1, b: 2 },
  };
}
