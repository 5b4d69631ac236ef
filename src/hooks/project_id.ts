/**
 * The project a hook works for: `--project <id>`, else derived from the working folder. The rule
 * (also in the README): the `origin` remote's `owner/repo` (else the first remote's), which is the
 * last two segments of its path without `.git`, lowercased; without a remote, the name of the
 * repository's top folder (or of the working folder outside git), lowercased, with every
 * character other than a-z 0-9 . _ - replaced by `-`.
 */

import { basename } from "node:path";

/** Where a project id came from, for the brief's first line. */
export type ProjectSource = "flag" | "git remote" | "folder";

/** A project id and how it was found. */
export interface ProjectId {
  id: string;
  source: ProjectSource;
}

/** The project of `cwd`, or the one `flag` names. */
export async function resolveProjectId(
  cwd: string,
  flag: string | undefined,
): Promise<ProjectId> {
  if (flag !== undefined) return { id: flag, source: "flag" };
  const remote = await gitRemoteUrl(cwd);
  const fromRemote = remote === undefined ? undefined : ownerRepo(remote);
  if (fromRemote !== undefined) return { id: fromRemote, source: "git remote" };
  const top = await git(cwd, ["rev-parse", "--show-toplevel"]);
  return { id: slug(basename(top ?? cwd)) || "project", source: "folder" };
}

/**
 * `owner/repo` of a remote URL in any of git's forms (`https://host/owner/repo.git`,
 * `git@host:owner/repo.git`, `ssh://git@host:22/group/sub/repo`, a local path), lowercased;
 * `undefined` when it has fewer than two path segments.
 */
export function ownerRepo(url: string): string | undefined {
  let path = url.trim();
  const scheme = path.match(/^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i);
  if (scheme) path = scheme[1] ?? "";
  else {
    const scp = path.match(/^[^/:]+@?[^/:]*:(.*)$/);
    if (scp) path = scp[1];
  }
  const parts = path.replace(/\/+$/, "").replace(/\.git$/i, "").split(/[/\\]/).filter((p) =>
    p !== ""
  );
  if (parts.length < 2) return undefined;
  const [owner, repo] = parts.slice(-2).map(slug);
  return owner && repo ? `${owner}/${repo}` : undefined;
}

/** The handoff tag of a project: `project:<id>`, lowercased, cut to the tag length limit. */
export function projectTag(id: string, maxChars = 50): string {
  const tag = `project:${id.toLowerCase().replace(/[^a-z0-9_:./-]+/g, "-")}`;
  return [...tag].slice(0, maxChars).join("");
}

/** Lowercased, with runs of characters other than a-z 0-9 . _ - made one `-`. */
function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");
}

/** The URL of `origin`, else of the first remote; `undefined` outside git or without one. */
async function gitRemoteUrl(cwd: string): Promise<string | undefined> {
  const origin = await git(cwd, ["remote", "get-url", "origin"]);
  if (origin) return origin;
  const first = (await git(cwd, ["remote"]))?.split("\n")[0];
  return first ? await git(cwd, ["remote", "get-url", first]) : undefined;
}

/** The trimmed output of `git <args>` in `cwd`, or `undefined` when git fails or is missing. */
async function git(cwd: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("git", {
      args: ["-C", cwd, ...args],
      stdout: "piped",
      stderr: "null",
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    return out.success && text !== "" ? text : undefined;
  } catch {
    return undefined;
  }
}
