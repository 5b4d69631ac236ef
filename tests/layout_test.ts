/**
 * The layout rules, checked on the source tree: dependencies point one way
 * (`main → http → mcp → tools → kit`, `<toolset> → tools, kit`; `tools/` never imports serving),
 * `http/` and `mcp/server.ts` learn about features only through `toolsets.ts`, no toolset
 * reaches into another, the console (wired by `main.ts`) uses
 * the toolsets' stores but no tools and nothing depends on it, and every write goes through the
 * kit's `atomic(kv)` (one place for what every write needs). The map stays true: every source
 * file is on ARCHITECTURE.md, no import circle, every bench group in bench/README.md
 * (`support/map.ts`).
 */

import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { ROOT } from "./support/harness.ts";
import {
  importCircles,
  importsOf,
  type SourceFile,
  undescribedBenchGroups,
  unmappedFiles,
} from "./support/map.ts";

/** The toolset folders: every folder of `src/` holding a `toolset.ts` (`tools/` holds the contract). */
function toolsetsOf(files: SourceFile[]): string[] {
  return files.flatMap((f) => {
    const match = f.path.match(/^src\/([^/]+)\/toolset\.ts$/);
    return match && match[1] !== "tools" ? [match[1]] : [];
  });
}

/** The text without comments, so a rule about names is about code and strings. */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** Every broken layout rule in `files`, one line each. */
function violations(files: SourceFile[]): string[] {
  const toolsets = toolsetsOf(files);
  const folderOf = (path: string) => path.match(/^src\/([^/]+)\//)?.[1];
  const out: string[] = [];
  for (const file of files) {
    if (file.path.endsWith("_test.ts")) continue;
    const folder = folderOf(file.path);
    const imports = importsOf(file);
    const importedFolders = imports.map(folderOf);
    const neutral = file.path.startsWith("src/http/") || file.path === "src/mcp/server.ts";
    if (neutral) {
      // `url.search` is a URL property, not the search toolset.
      const code = codeOf(file.text).replaceAll("handoff-mcp", "").replace(/\.search\b/g, "");
      for (const name of toolsets) {
        if (new RegExp(`\\b${name}\\b`, "i").test(code)) {
          out.push(`${file.path} names the toolset "${name}"`);
        }
      }
      for (const name of toolsets) {
        if (importedFolders.includes(name)) out.push(`${file.path} imports src/${name}/`);
      }
    }
    if (folder !== undefined && toolsets.includes(folder)) {
      for (const path of imports) {
        const other = folderOf(path);
        if (other !== undefined && other !== folder && toolsets.includes(other)) {
          out.push(`${file.path} (toolset ${folder}) imports ${path}`);
        }
        if (other === "http" || path === "src/toolsets.ts" || path === "src/config.ts") {
          out.push(`${file.path} (toolset ${folder}) imports ${path}`);
        }
        if (other === "mcp") {
          // <toolset> → tools → kit: a toolset defines its tools with tools/ (its caller and
          // session included), never with the server.
          out.push(`${file.path} (toolset ${folder}) imports ${path}`);
        }
      }
    }
    if (file.path !== "src/kit/commit.ts" && /\.atomic\(\)/.test(codeOf(file.text))) {
      // Every write's atomic is made by the kit's atomic(kv): one place for what every write needs.
      out.push(`${file.path} commits with kv.atomic() instead of atomic(kv)`);
    }
    if (folder === "kit") {
      for (const path of imports) {
        const other = folderOf(path);
        if (other !== "kit") out.push(`${file.path} (kit) imports ${path}`);
      }
    }
    if (folder === "tools") {
      // The toolsets' authoring kit: built on kit/ (and the Config type), never on serving.
      for (const path of imports) {
        const other = folderOf(path);
        if (other !== "kit" && other !== "tools" && path !== "src/config.ts") {
          out.push(`${file.path} (tools) imports ${path}`);
        }
      }
    }
    if (folder === "oauth") {
      // http → oauth → kit: the OAuth server uses only the kit and the SDK's OAuth schemas
      // (its CLI also reads the server's config to find KV).
      const allowed = ["src/config.ts"];
      for (const path of imports) {
        const other = folderOf(path);
        if (other !== "kit" && other !== "oauth" && !allowed.includes(path)) {
          out.push(`${file.path} (oauth) imports ${path}`);
        }
      }
    }
    const code = codeOf(file.text);
    // The SDK by its public API only: no underscore member of its objects (`_meta` is the
    // protocol's own field; `_zod` is zod's schema hook, not the SDK's), no patching of its
    // methods, no internal entry point, and the v1 SDK only through src/client/sdk_client.ts (the 2025 client).
    for (const m of code.matchAll(/(?:\.|\[\s*["'])(_[A-Za-z]\w*)/g)) {
      if (m[1] !== "_meta" && m[1] !== "_zod") {
        out.push(`${file.path} reaches the private member ${m[1]}`);
      }
    }
    if (/Object\.defineProperty\(/.test(code)) out.push(`${file.path} redefines a property`);
    if (/"@modelcontextprotocol\/[\w-]+\/internal"/.test(code)) {
      out.push(`${file.path} imports an SDK internal entry point`);
    }
    if (
      /"(npm:)?@modelcontextprotocol\/sdk[@/"]/.test(code) &&
      file.path !== "src/client/sdk_client.ts"
    ) {
      out.push(`${file.path} imports SDK v1 (only src/client/sdk_client.ts may)`);
    }
    if (folder === "hooks") {
      // main → hooks → mcp → <toolset> → kit: the hooks reach the store through MCP, never HTTP.
      for (const path of imports) {
        if (folderOf(path) === "http") out.push(`${file.path} (hooks) imports ${path}`);
      }
    } else if (importedFolders.includes("hooks")) {
      out.push(`${file.path} imports src/hooks/ (only main.ts runs the hooks)`);
    }
    if (folder !== "console" && importedFolders.includes("console")) {
      // The console is wired by main.ts: nothing it builds on may depend on it.
      out.push(`${file.path} imports src/console/`);
    }
    if (folder === "console") {
      // The console writes through the toolsets' and OAuth's stores; it never registers tools.
      for (const path of imports) {
        const other = folderOf(path);
        const tool = /\/(tools[^/]*|toolset)\.ts$/.test(path) && toolsets.includes(other ?? "");
        const allowed = other === undefined ||
          ["kit", "oauth", "console", "backup"].includes(other) ||
          toolsets.includes(other) ||
          ["src/config.ts", "src/http/status.ts", "src/tools/toolset.ts"].includes(path);
        if (tool || !allowed) out.push(`${file.path} (console) imports ${path}`);
      }
    }
    if (folder === "mcp") {
      for (const path of imports) {
        const other = folderOf(path);
        if (other === "http" || (other !== undefined && toolsets.includes(other))) {
          out.push(`${file.path} (mcp) imports ${path}`);
        }
      }
    }
  }
  return out;
}

async function sourceFiles(root = "src"): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        files.push({ path: relative(ROOT, path), text: await Deno.readTextFile(path) });
      }
    }
  };
  await walk(join(ROOT, root));
  return files;
}

Deno.test("the source tree keeps the layout rules", async () => {
  const files = await sourceFiles();
  const toolsets = toolsetsOf(files);
  for (const name of ["focus", "handoff", "thinking"]) {
    assert.ok(toolsets.includes(name), `src/${name}/toolset.ts is found`);
  }
  assert.deepEqual(violations(files), []);
});

Deno.test("the layout check reports each kind of broken rule", () => {
  const file = (path: string, text: string) => ({ path, text });
  const files = [
    file("src/alpha/toolset.ts", ""),
    file("src/beta/toolset.ts", ""),
    file("src/alpha/store.ts", 'import { x } from "../beta/store.ts";\nimport "../kit/kv.ts";'),
    file("src/alpha/tools.ts", 'import type { Config } from "../config.ts";'),
    file("src/beta/api.ts", 'export { y } from "../http/router.ts";'),
    file("src/http/handler.ts", '// alpha in a comment is fine\nconst beta = "x";'),
    file("src/http/serve.ts", 'import { a } from "../alpha/toolset.ts";'),
    file("src/mcp/server.ts", 'const name = "handoff-mcp";'),
    file("src/mcp/apps.ts", 'import { h } from "../http/handler.ts";'),
    file("src/kit/text.ts", 'import { M } from "../mcp/sdk.ts";'),
    file("src/tools/results.ts", 'import { s } from "../mcp/server.ts";'),
    file(
      "src/alpha/tools_b.ts",
      'import { b } from "../mcp/server.ts";\nimport "../tools/caller.ts";',
    ),
    file("src/alpha/store_test.ts", 'import { x } from "../beta/store.ts";'),
    file("src/alpha/write.ts", "const op = kv.atomic().set(key, 1);"),
    file("src/oauth/server.ts", 'import { h } from "../http/auth.ts";'),
    file("src/mcp/fast.ts", "const t = server._registeredTools; x._meta; s._zod;"),
    file("src/http/patch.ts", 'Object.defineProperty(server, "connect", {});'),
    file("src/mcp/old.ts", 'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";'),
    file("src/mcp/inner.ts", 'import { x } from "@modelcontextprotocol/core/internal";'),
    file("src/mcp/bracket.ts", 'const h = (server as any)["_requestHandlers"];'),
    file("src/hooks/brief.ts", 'import { s } from "../http/serve.ts";'),
    file("src/mcp/stdio.ts", 'import { b } from "../hooks/brief.ts";'),
    file(
      "src/console/pages.ts",
      'import { t } from "../alpha/tools.ts";\nimport "../alpha/store.ts";',
    ),
    file("src/console/wire.ts", 'import { s } from "../http/serve.ts";'),
    file("src/http/routes.ts", 'import { c } from "../console/console.ts";'),
  ];
  assert.deepEqual(violations(files), [
    "src/alpha/store.ts (toolset alpha) imports src/beta/store.ts",
    "src/alpha/tools.ts (toolset alpha) imports src/config.ts",
    "src/beta/api.ts (toolset beta) imports src/http/router.ts",
    'src/http/handler.ts names the toolset "beta"',
    'src/http/serve.ts names the toolset "alpha"',
    "src/http/serve.ts imports src/alpha/",
    "src/mcp/apps.ts (mcp) imports src/http/handler.ts",
    "src/kit/text.ts (kit) imports src/mcp/sdk.ts",
    "src/tools/results.ts (tools) imports src/mcp/server.ts",
    "src/alpha/tools_b.ts (toolset alpha) imports src/mcp/server.ts",
    "src/alpha/write.ts commits with kv.atomic() instead of atomic(kv)",
    "src/oauth/server.ts (oauth) imports src/http/auth.ts",
    "src/mcp/fast.ts reaches the private member _registeredTools",
    "src/http/patch.ts redefines a property",
    "src/mcp/old.ts imports SDK v1 (only src/client/sdk_client.ts may)",
    "src/mcp/inner.ts imports an SDK internal entry point",
    "src/mcp/bracket.ts reaches the private member _requestHandlers",
    "src/hooks/brief.ts (hooks) imports src/http/serve.ts",
    "src/mcp/stdio.ts imports src/hooks/ (only main.ts runs the hooks)",
    "src/console/pages.ts (console) imports src/alpha/tools.ts",
    "src/console/wire.ts (console) imports src/http/serve.ts",
    "src/http/routes.ts imports src/console/",
  ]);
});

Deno.test("the map is true: every source file on it, no import circle, every bench group described", async () => {
  const files = await sourceFiles();
  const architecture = await Deno.readTextFile(join(ROOT, "ARCHITECTURE.md"));
  const readme = await Deno.readTextFile(join(ROOT, "bench/README.md"));
  assert.deepEqual(unmappedFiles(files, architecture), []);
  assert.deepEqual(importCircles(files), []);
  assert.deepEqual(undescribedBenchGroups(await sourceFiles("bench"), readme), []);
});

Deno.test("the map check reports a file off the map, a circle and a bench group not described", () => {
  const file = (path: string, text = "") => ({ path, text });
  const architecture = [
    "## Layout\n\n```",
    "src/",
    "  config.ts        settings",
    "  alpha/           store.ts, tools_*.ts",
    "  kit/             kv.ts",
    "tests/             render.ts and gone.ts here are not map lines of src/",
    "```",
    "Elsewhere: beta/api.ts.",
  ].join("\n");
  const files = [
    file("src/config.ts"),
    file("src/toolsets.ts"),
    file("src/alpha/store.ts", 'import type { T } from "./tools_a.ts";'),
    file("src/alpha/tools_a.ts", 'import { s } from "./store.ts";'),
    file("src/alpha/render.ts"),
    file("src/alpha/render_test.ts"),
    file("src/beta/api.ts"),
    file("src/beta/gone.ts"),
    file("src/kit/kv.ts", 'import "./text.ts";'),
  ];
  assert.deepEqual(unmappedFiles(files, architecture), [
    "src/toolsets.ts is not on the map: add a line for src/toolsets.ts to ARCHITECTURE.md (Layout)",
    "src/alpha/render.ts is not on the map: add a line for src/alpha/render.ts to ARCHITECTURE.md (Layout)",
    "src/beta/gone.ts is not on the map: add a line for src/beta/gone.ts to ARCHITECTURE.md (Layout)",
  ]);
  assert.deepEqual(importCircles(files), [
    "import circle: src/alpha/store.ts → src/alpha/tools_a.ts → src/alpha/store.ts (move what both need into a third file)",
  ]);
  const bench = [
    file("bench/a.ts", 'export const aGroup: BenchGroup = {\n  name: "a",\n  what: "x",'),
  ];
  assert.deepEqual(undescribedBenchGroups(bench, "| `a` | described |"), []);
  assert.deepEqual(undescribedBenchGroups(bench, "| `ab` | another |"), [
    'bench group "a" (bench/a.ts) has no row in bench/README.md: add "| `a` | what it measures |"',
  ]);
});

Deno.test("deno.lock holds only what the server runs: the packages of deno.json's imports", async () => {
  // A desktop app's first `main.ts --stdio` resolves deno.lock: a test-only package there
  // (the browser driver, the OAuth test client) is downloaded before the first answer.
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const lock = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.lock")));
  const served = new Set(
    Object.values(config.imports as Record<string, string>)
      .filter((s) => s.startsWith("npm:") && !s.startsWith("npm:/"))
      .map((s) => s.slice("npm:".length)),
  );
  const locked = Object.keys(lock.specifiers ?? {}).map((s) => s.replace(/^npm:/, ""));
  assert.deepEqual(locked.filter((s) => !served.has(s)), [], "run `deno cache main.ts` anew");
});
