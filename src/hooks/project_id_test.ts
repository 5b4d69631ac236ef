import assert from "node:assert/strict";
import { join } from "node:path";
import { ownerRepo, projectTag, resolveProjectId } from "./project_id.ts";

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args: ["-C", cwd, ...args], stderr: "piped" })
    .output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "handoff-hooks-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("ownerRepo() reads owner/repo from every form of git remote, lowercased", () => {
  const cases: [string, string | undefined][] = [
    ["https://github.com/Acme/Widget.git", "acme/widget"],
    ["https://github.com/Acme/Widget.js", "acme/widget.js"],
    ["git@github.com:Acme/Widget.js.git", "acme/widget.js"],
    ["ssh://git@gitlab.example.com:2222/group/sub/Tool.git", "sub/tool"],
    ["https://user:pw@host.example/owner/repo/", "owner/repo"],
    ["/srv/git/owner/repo.git", "owner/repo"],
    ["https://host.example/only", undefined],
  ];
  for (const [url, expected] of cases) assert.equal(ownerRepo(url), expected, url);
});

Deno.test("resolveProjectId() takes the origin remote of a real repository, from a subfolder too", async () => {
  await withTempDir(async (dir) => {
    await git(dir, "init", "-q");
    await git(dir, "remote", "add", "upstream", "https://example.com/other/thing.git");
    await git(dir, "remote", "add", "origin", "git@github.com:Acme/Widget.js.git");
    await Deno.mkdir(join(dir, "src", "deep"), { recursive: true });
    assert.deepEqual(await resolveProjectId(join(dir, "src", "deep"), undefined), {
      id: "acme/widget.js",
      source: "git remote",
    });
  });
});

Deno.test("resolveProjectId() uses another remote without origin, the top folder without any", async () => {
  await withTempDir(async (dir) => {
    const repo = join(dir, "My Project");
    await Deno.mkdir(join(repo, "sub"), { recursive: true });
    await git(repo, "init", "-q");
    assert.deepEqual(await resolveProjectId(join(repo, "sub"), undefined), {
      id: "my-project",
      source: "folder",
    });
    await git(repo, "remote", "add", "fork", "https://example.com/Me/Fork.git");
    assert.equal((await resolveProjectId(repo, undefined)).id, "me/fork");
  });
});

Deno.test("resolveProjectId() outside git names the folder; --project wins over everything", async () => {
  await withTempDir(async (dir) => {
    const plain = join(dir, "Notes_2026");
    await Deno.mkdir(plain);
    assert.deepEqual(await resolveProjectId(plain, undefined), {
      id: "notes_2026",
      source: "folder",
    });
    assert.deepEqual(await resolveProjectId(plain, "Given Id"), { id: "Given Id", source: "flag" });
  });
});

Deno.test("projectTag() is a valid handoff tag: lowercased, other characters as -, cut", () => {
  assert.equal(projectTag("acme/widget.js"), "project:acme/widget.js");
  assert.equal(projectTag("Given Id ✓"), "project:given-id-");
  assert.equal(projectTag("a".repeat(60)).length, 50);
});
