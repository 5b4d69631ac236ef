/**
 * The argument types of the drop-in thinking tools. Clients of the standard sequential-thinking
 * server send numbers and booleans as strings (`"4"`, `"true"`), so those are accepted at run
 * time; the listing says integer and boolean, the one type a function-calling client accepts.
 * Nothing else is read as a number: `true`, `[4]`, `"0x4"`, `"4e0"` and `""` are refused.
 */

import { z } from "zod";
import { advertisedAs } from "../tools/schema.ts";

const DIGITS = /^\s*\d+\s*$/;

/** How a refused value is shown in an error: JSON, cut short. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** A whole number from `min` to `max`: a JSON number, or a string of decimal digits. */
export function wholeNumberArg(min: number, max: number, description: string) {
  const schema = z.unknown().transform((value, ctx) => {
    const number = typeof value === "number"
      ? value
      : typeof value === "string" && DIGITS.test(value)
      ? Number(value)
      : Number.NaN;
    if (Number.isInteger(number) && number >= min && number <= max) return number;
    ctx.addIssue({
      code: "custom",
      message:
        `Expected a whole number from ${min} to ${max} (a number, or decimal digits such as "4"), got ${
          shown(value)
        }`,
    });
    return z.NEVER;
  });
  return advertisedAs(schema, { type: "integer", minimum: min, maximum: max }, description);
}

/** A boolean: `true`/`false`, or the strings `"true"`/`"false"` in any case. */
export function flagArg(description: string) {
  const schema = z.unknown().transform((value, ctx) => {
    if (typeof value === "boolean") return value;
    const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
    if (text === "true") return true;
    if (text === "false") return false;
    ctx.addIssue({
      code: "custom",
      message: `Expected a boolean (true or false, also as the strings "true" or "false"), got ${
        shown(value)
      }`,
    });
    return z.NEVER;
  });
  return advertisedAs(schema, { type: "boolean" }, description);
}
