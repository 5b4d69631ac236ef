/** The Gemini API (`generateContent`, `streamGenerateContent`) as Gemini CLI uses it, for the stub. */

import { sse, type Turn, type VendorApi, type VendorRequest } from "./stub_model_wire.ts";

interface Part {
  text?: string;
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response?: Record<string, unknown> };
}
interface Declaration {
  name: string;
  parameters?: { properties?: Record<string, unknown> };
  parametersJsonSchema?: { properties?: Record<string, unknown> };
}
interface GenerateBody {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: Declaration[] }[];
  generationConfig?: {
    responseMimeType?: string;
    responseSchema?: Schema;
    responseJsonSchema?: Schema;
  };
}
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  minimum?: number;
}

function read(raw: unknown): VendorRequest {
  const body = (raw ?? {}) as GenerateBody;
  const declarations = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const results: VendorRequest["results"] = [];
  let unnamed = 0;
  for (const content of body.contents ?? []) {
    for (const part of content.parts ?? []) {
      const response = part.functionResponse;
      if (!response) continue;
      const output = response.response ?? {};
      results.push({
        vendor: "gemini",
        name: response.name,
        callId: response.id ?? `${response.name}#${unnamed++}`,
        text: JSON.stringify(output),
        isError: "error" in output,
        raw: part,
      });
    }
  }
  return {
    toolNames: declarations.map((d) => d.name),
    results,
    paramsOf(name) {
      const d = declarations.find((x) => x.name === name);
      return Object.keys((d?.parametersJsonSchema ?? d?.parameters)?.properties ?? {});
    },
  };
}

/** A value of `schema`: what a side request asking for JSON (routing, next speaker) accepts. */
function sample(schema: Schema | undefined, key = ""): unknown {
  if (!schema) return {};
  if (schema.enum?.length) {
    // Gemini CLI's next-speaker check: hand the turn back to the user, or it loops.
    return schema.enum.includes("user") ? "user" : schema.enum[0];
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (String(type ?? "object").toLowerCase()) {
    case "string":
      return key === "reasoning" ? "stub model" : "stub";
    case "number":
    case "integer":
      return schema.minimum ?? 1;
    case "boolean":
      return false;
    case "array":
      return [];
    default:
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v, k)]),
      );
  }
}

function partsOf(turn: Turn, body: GenerateBody): Part[] {
  if (turn.call) {
    return [{ functionCall: { id: turn.call.id, name: turn.call.name, args: turn.call.args } }];
  }
  const config = body.generationConfig;
  if (config?.responseMimeType === "application/json") {
    return [{ text: JSON.stringify(sample(config.responseJsonSchema ?? config.responseSchema)) }];
  }
  return [{ text: turn.text ?? "" }];
}

function answer(turn: Turn, url: URL, raw: unknown): Response {
  const body = (raw ?? {}) as GenerateBody;
  const chunk = {
    candidates: [{
      content: { role: "model", parts: partsOf(turn, body) },
      finishReason: "STOP",
      index: 0,
    }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "gemini-stub",
  };
  return url.pathname.endsWith(":streamGenerateContent")
    ? sse([[null, chunk]])
    : Response.json(chunk);
}

/** Answers `generateContent`, `streamGenerateContent?alt=sse`, `countTokens` and model reads. */
export const geminiVendor: VendorApi = {
  vendor: "gemini",
  matches: (path) => /^\/v1(beta|alpha)?\/models/.test(path),
  utility(_req, url) {
    const path = url.pathname;
    if (path.endsWith(":countTokens")) return Response.json({ totalTokens: 10 });
    if (path.endsWith(":embedContent")) return Response.json({ embedding: { values: [0] } });
    if (!path.includes(":")) {
      const model = { name: "models/gemini-2.5-pro", displayName: "Gemini (stub)" };
      return Response.json(/\/models\/?$/.test(path) ? { models: [model] } : model);
    }
    return null;
  },
  read,
  answer,
};
