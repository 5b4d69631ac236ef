/**
 * The checks that keep the written map true (`tests/layout_test.ts` runs them): every source
 * file of `src/` is named in ARCHITECTURE.md's Layout, no import circle exists among them, and
 * every bench group is described in bench/README.md. Pure functions over texts, so the test can
 * show each one failing on a made-up tree.
 */

import { dirname, join, normalize } from "node:path";

/** One source file: its path from the repository root and its text. */
export interface SourceFile {
  path: string;
  text: string;
}

/** The repository paths `file` imports (relative specifiers only, types too), normalized. */
export function importsOf(file: SourceFile): string[] {
  const specifiers = [
    ...file.text.matchAll(/(?:import|export)\s[^;]*?from\s+"([^"]+)"/g),
    ...file.text.matchAll(/import\s*\(\s*"([^"]+)"\s*\)/g),
    ...file.text.matchAll(/^import\s+"([^"]+)"/gm),
  ].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith(".")).map((s) =>
    normalize(join(dirname(file.path), s))
  );
}

/**
 * The file names ARCHITECTURE.md's Layout block lists per folder of `src/` (`""` for `src/`
 * itself); `store_*.ts` stands for every name it matches. A folder's part runs from its line
 * (`  focus/ …`) to the next folder's; a name written elsewhere as `folder/name.ts` counts too.
 */
export function mappedNames(architecture: string): Map<string, RegExp[]> {
  const block = architecture.match(/## Layout\s+```\n([\s\S]*?)\n```/)?.[1] ?? "";
  const byFolder = new Map<string, RegExp[]>();
  let folder: string | undefined;
  for (const line of block.split("\n")) {
    const top = line.match(/^(\S+)/)?.[1];
    const sub = line.match(/^ {2}([a-z_]+)\/\s/)?.[1];
    if (top !== undefined) folder = top === "src/" ? "" : undefined;
    else if (sub !== undefined) folder = sub;
    if (folder === undefined) continue;
    const names = byFolder.get(folder) ?? [];
    for (const m of line.matchAll(/[\w*]+\.ts\b/g)) names.push(globOf(m[0]));
    byFolder.set(folder, names);
  }
  for (const m of architecture.matchAll(/\b([a-z_]+)\/([\w*]+\.ts)\b/g)) {
    byFolder.set(m[1], [...(byFolder.get(m[1]) ?? []), globOf(m[2])]);
  }
  return byFolder;
}

function globOf(name: string): RegExp {
  return new RegExp(`^${name.replaceAll(".", "\\.").replaceAll("*", "\\w*")}$`);
}

/** One line per source file of `src/` (tests aside) the map does not name. */
export function unmappedFiles(files: readonly SourceFile[], architecture: string): string[] {
  const mapped = mappedNames(architecture);
  const out: string[] = [];
  for (const { path } of files) {
    if (path.endsWith("_test.ts")) continue;
    const m = path.match(/^src\/(?:([^/]+)\/)?([^/]+\.ts)$/);
    if (m === null) continue;
    const [, folder = "", name] = m;
    if (!(mapped.get(folder) ?? []).some((re) => re.test(name))) {
      out.push(`${path} is not on the map: add a line for ${path} to ARCHITECTURE.md (Layout)`);
    }
  }
  return out;
}

/** One line per import circle among `files` (tests aside), as the path that closes it. */
export function importCircles(files: readonly SourceFile[]): string[] {
  const sources = files.filter((f) => !f.path.endsWith("_test.ts"));
  const known = new Set(sources.map((f) => f.path));
  const edges = new Map(sources.map((f) => [f.path, importsOf(f).filter((p) => known.has(p))]));
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const out: string[] = [];
  const visit = (path: string) => {
    state.set(path, "open");
    stack.push(path);
    for (const next of edges.get(path) ?? []) {
      if (state.get(next) === "open") {
        const circle = [...stack.slice(stack.indexOf(next)), next];
        out.push(`import circle: ${circle.join(" → ")} (move what both need into a third file)`);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(path, "done");
  };
  for (const path of [...known].sort()) if (!state.has(path)) visit(path);
  return out;
}

/** One line per bench group (a `BenchGroup` with its `name`) bench/README.md does not describe. */
export function undescribedBenchGroups(
  benchFiles: readonly SourceFile[],
  readme: string,
): string[] {
  const out: string[] = [];
  for (const file of benchFiles) {
    for (const m of file.text.matchAll(/:\s*BenchGroup\s*=\s*\{\s*name:\s*"([^"]+)"/g)) {
      if (!new RegExp(`^\\|\\s*\`${m[1]}\`\\s*\\|`, "m").test(readme)) {
        out.push(
          `bench group "${m[1]}" (${file.path}) has no row in bench/README.md: add "| \`${
            m[1]
          }\` | what it measures |"`,
        );
      }
    }
  }
  return out;
}
