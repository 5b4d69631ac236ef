/**
 * The walk of tests/output_schemas_test.ts: calls a tool as one of two sessions, with one argument
 * no tool takes, and records every way its result breaks the output schema or the issue-19
 * contract (see output_schema.ts), naming the tool and its arguments.
 */

import type { McpClient } from "./mcp.ts";
import {
  guidanceProblems,
  type ListedTool,
  outputValidators,
  type Problems,
  untrustedProblems,
} from "./output_schema.ts";

/** In every text the other session writes, and in nothing this session writes. */
export const SENTINEL = "zqother";
/** The one argument no tool takes, added to every call. */
export const UNKNOWN = "extra_argument";

type Data = Record<string, unknown>;
// Results are read field by field to chain the calls; a loose type keeps that readable.
// deno-lint-ignore no-explicit-any
export type Loose = any;

/** What a call expects beyond the checks every call gets. */
export interface Expect {
  /** A note matching this must be in `structuredContent.notes`. */
  note?: RegExp;
  /** The result must (true) or must not (false) carry the untrusted notice. */
  untrusted?: boolean;
  /** True of the result when it has the shape this case is for (a revision, a note posted). */
  shape?: (data: Loose) => boolean;
}

/** The walk: clients, the listing, what was called and every problem found. */
export class Walk {
  readonly called = new Set<string>();
  readonly problems: string[] = [];
  private readonly schemas: Map<string, Data | undefined>;
  private readonly validators: Map<string, (data: unknown) => Problems>;

  /** `me` reads what `other` wrote; a session's own text coming back to it is not checked. */
  constructor(readonly tools: ListedTool[], private readonly me: McpClient) {
    this.schemas = new Map(tools.map((t) => [t.name, t.outputSchema]));
    this.validators = outputValidators(tools);
  }

  /** Calls `tool` as `client` with `args` and one unknown argument; checks the result. */
  async call(client: McpClient, tool: string, args: Data, expect: Expect = {}): Promise<Loose> {
    this.called.add(tool);
    const r = await client.callTool({ name: tool, arguments: { ...args, [UNKNOWN]: true } });
    const text = (r.content as { type: string; text?: string }[])
      .filter((c) => c.type === "text").map((c) => c.text).join("\n");
    const sentinel = client === this.me ? SENTINEL : "\u0000none";
    const problems = r.isError ? [`failed: ${text}`] : this.check(tool, text, r, sentinel, expect);
    this.problems.push(...problems.map((p) => `${tool} ${JSON.stringify(args)}: ${p}`));
    return r.structuredContent ?? {};
  }

  private check(tool: string, text: string, r: Data, sentinel: string, expect: Expect): Problems {
    const schema = this.schemas.get(tool);
    const data = r.structuredContent as Data | undefined;
    const problems: Problems = [];
    if (!text.includes(`"${UNKNOWN}"`)) {
      problems.push("the text does not name the ignored argument");
    }
    if (schema === undefined) {
      // Text-only tools (get_state's fixed format and the writes that print it) are outside
      // the structured contract.
      if (data !== undefined) problems.push("structuredContent without an outputSchema");
      return problems;
    }
    if (data === undefined) return ["no structuredContent, though an outputSchema is listed"];
    problems.push(...this.validators.get(tool)!(data));
    problems.push(...untrustedProblems(text, data, schema, sentinel));
    problems.push(...guidanceProblems(text, data));
    if (JSON.stringify(data.ignored_arguments) !== JSON.stringify([UNKNOWN])) {
      problems.push(`ignored_arguments is ${JSON.stringify(data.ignored_arguments)}`);
    }
    if (expect.untrusted !== undefined && expect.untrusted !== ("untrusted" in data)) {
      problems.push(expect.untrusted ? "no untrusted notice" : "an untrusted notice");
    }
    if (expect.shape && !expect.shape(data)) {
      problems.push(`not the shape this case is for (${expect.shape}): ${JSON.stringify(data)}`);
    }
    const notes = (data.notes ?? []) as string[];
    if (expect.note && !notes.some((n) => expect.note!.test(n))) {
      problems.push(`no note matching ${expect.note}; notes: ${JSON.stringify(notes)}`);
    }
    return problems;
  }
}
