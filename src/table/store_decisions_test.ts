import assert from "node:assert/strict";
import { AppError } from "../kit/errors.ts";
import { CLAUDE, CODEX, fails, OWNER, withTable } from "../../tests/support/table_mcp.ts";
import { countValue } from "./store_common.ts";
import {
  getDecisions,
  recordDecision,
  resolveDecision,
  setDecisionScope,
  standingRules,
} from "./store_decisions.ts";
import { createDiscussion } from "./store_discussions.ts";
import { getDiscussion } from "./store_discussion_page.ts";
import { keys } from "./store_schema.ts";

const SECRET = { APPROVAL_SECRET: "open-sesame-42" };

Deno.test("recordDecision() always creates a proposed decision", async () => {
  await withTable(SECRET, async ({ ctx, kv }) => {
    const r = await recordDecision(ctx, CODEX, { title: "Use REST", detail: "simpler" });
    assert.equal(r.decision.status, "proposed");
    assert.equal(r.decision.decided_by, null);
    assert.equal(r.decision.scope, "project");
    assert.equal(countValue(await kv.get(keys.count("main", "decisions_proposed"))), 1);
  });
});

Deno.test("resolveDecision(): human with the right code, relayed without, an error otherwise", async () => {
  await withTable(SECRET, async ({ ctx, kv }) => {
    const a = (await recordDecision(ctx, CODEX, { title: "A", detail: "d" })).decision;
    const b = (await recordDecision(ctx, CODEX, { title: "B", detail: "d" })).decision;
    await fails(
      resolveDecision(ctx, CLAUDE, {
        decision_id: a.id,
        verdict: "approved",
        reason: "ok",
        approval_code: "guess",
      }),
      "invalid",
      /approval_code_wrong: approval_code does not match/,
    );
    await fails(
      resolveDecision(ctx, CLAUDE, { decision_id: a.id, verdict: "approved", reason: " " }),
      "invalid",
      /reason must not be empty or blank/,
    );
    const human = await resolveDecision(ctx, OWNER, {
      decision_id: a.id,
      verdict: "approved",
      reason: "the person said so",
      approval_code: SECRET.APPROVAL_SECRET,
    });
    assert.equal(human.decision.decided_by_kind, "human");
    assert.equal(human.decision.decided_via, "approval_code");
    assert.deepEqual(human.decision.decided_by, { name: "owner", via: "default" });
    const relayed = await resolveDecision(ctx, CLAUDE, {
      decision_id: b.id,
      verdict: "rejected",
      reason: "no",
    });
    assert.equal(relayed.decision.decided_by_kind, "relayed");
    assert.equal(relayed.decision.decided_via, "relayed");
    assert.equal(relayed.decision.status, "rejected");
    assert.equal(countValue(await kv.get(keys.count("main", "decisions_proposed"))), 0);
    assert.equal(countValue(await kv.get(keys.count("main", "decisions_approved"))), 1);
  });
  await withTable({}, async ({ ctx }) => {
    const d = (await recordDecision(ctx, CODEX, { title: "A", detail: "d" })).decision;
    await fails(
      resolveDecision(ctx, CLAUDE, {
        decision_id: d.id,
        verdict: "approved",
        reason: "ok",
        approval_code: "anything",
      }),
      "invalid",
      /approval_unavailable: .*no APPROVAL_SECRET/,
    );
    const after = await getDecisions(ctx, {});
    assert.equal(after.decisions[0].status, "proposed");
  });
});

Deno.test("resolveDecision() from the console: human, proof console, no code taken, same note", async () => {
  await withTable(SECRET, async ({ ctx }) => {
    const console = { name: "Ada", via: "console" as const };
    const discussion = await createDiscussion(ctx, CODEX, { title: "T", body: "b" });
    const d = (await recordDecision(ctx, CODEX, {
      title: "A",
      detail: "d",
      discussion_id: discussion.discussion.id,
    })).decision;
    await fails(
      resolveDecision(ctx, console, {
        decision_id: d.id,
        verdict: "approved",
        reason: "ok",
        approval_code: SECRET.APPROVAL_SECRET,
      }),
      "invalid",
      /not taken from the console/,
    );
    const r = await resolveDecision(ctx, console, {
      decision_id: d.id,
      verdict: "approved",
      reason: "I read it",
    });
    assert.equal(r.decision.decided_by_kind, "human");
    assert.equal(r.decision.decided_via, "console");
    assert.deepEqual(r.decision.decided_by, { name: "Ada", via: "console" });
    const page = await getDiscussion(ctx, { discussion_id: discussion.discussion.id });
    const note = page.messages.at(-1)!;
    assert.equal(note.kind, "note");
    assert.deepEqual(note.author, { name: "Ada", via: "console" });
    assert.match(note.body, /approved by Ada \(via console\) in the owner console/);
    await fails(
      resolveDecision(ctx, console, { decision_id: d.id, verdict: "rejected", reason: "no" }),
      "conflict",
      /already approved by Ada \(via console, human, proof console\)/,
    );
  });
});

Deno.test("resolveDecision() resolves once; a second attempt names who resolved it and when", async () => {
  await withTable(SECRET, async ({ ctx }) => {
    const d = (await recordDecision(ctx, CODEX, { title: "A", detail: "d" })).decision;
    await resolveDecision(ctx, CLAUDE, { decision_id: d.id, verdict: "approved", reason: "ok" });
    await fails(
      resolveDecision(ctx, CODEX, {
        decision_id: d.id,
        verdict: "rejected",
        reason: "changed my mind",
        approval_code: SECRET.APPROVAL_SECRET,
      }),
      "conflict",
      /already approved by claude \(via header, relayed, proof relayed\) at 2026-03-01T09:00:00.000Z/,
    );
  });
});

Deno.test("resolveDecision() racing: exactly one of two concurrent resolves wins", async () => {
  await withTable(SECRET, async ({ ctx }) => {
    for (let round = 0; round < 5; round++) {
      const d = (await recordDecision(ctx, CODEX, { title: `R${round}`, detail: "d" })).decision;
      const outcomes = await Promise.allSettled([
        resolveDecision(ctx, CLAUDE, { decision_id: d.id, verdict: "approved", reason: "yes" }),
        resolveDecision(ctx, CODEX, { decision_id: d.id, verdict: "rejected", reason: "no" }),
      ]);
      const won = outcomes.filter((o) => o.status === "fulfilled");
      const lost = outcomes.filter((o) => o.status === "rejected") as PromiseRejectedResult[];
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      const winner =
        (won[0] as PromiseFulfilledResult<{ decision: { decided_by: { name: string } } }>)
          .value.decision.decided_by.name;
      assert.ok(lost[0].reason instanceof AppError);
      assert.match(lost[0].reason.message, new RegExp(`already \\w+ by ${winner}`));
    }
  });
});

Deno.test("resolveDecision() posts a note into the decision's discussion in the same atomic", async () => {
  await withTable(SECRET, async ({ ctx }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "T", body: "idea" });
    const d = (await recordDecision(ctx, CODEX, {
      title: "Ship it",
      detail: "d",
      discussion_id: discussion.id,
    })).decision;
    const r = await resolveDecision(ctx, OWNER, {
      decision_id: d.id,
      verdict: "approved",
      reason: "tested",
      approval_code: SECRET.APPROVAL_SECRET,
    });
    assert.equal(r.note_seq, 2);
    const page = await getDiscussion(ctx, { discussion_id: discussion.id });
    const note = page.messages[1];
    assert.equal(note.kind, "note");
    assert.deepEqual(note.author, { name: "owner", via: "default" });
    assert.match(note.body, /approved by owner \(via default\) with a correct approval code/);
    assert.match(note.body, /Reason: tested/);
  });
});

Deno.test("resolveDecision() checks superseded_by: exists, same workspace, not itself, not rejected", async () => {
  await withTable(SECRET, async ({ ctx }) => {
    const a = (await recordDecision(ctx, CODEX, { title: "A", detail: "d" })).decision;
    const b = (await recordDecision(ctx, CODEX, { title: "B", detail: "d" })).decision;
    const other = (await recordDecision(ctx, CODEX, { title: "X", detail: "d", workspace: "x/y" }))
      .decision;
    const rejected = (await recordDecision(ctx, CODEX, { title: "R", detail: "d" })).decision;
    await resolveDecision(ctx, CODEX, {
      decision_id: rejected.id,
      verdict: "rejected",
      reason: "n",
    });
    const base = { decision_id: a.id, verdict: "rejected" as const, reason: "replaced" };
    await fails(
      resolveDecision(ctx, CODEX, { ...base, superseded_by: a.id }),
      "invalid",
      /not .* itself/,
    );
    await fails(
      resolveDecision(ctx, CODEX, { ...base, superseded_by: "01ARZ3NDEKTSV4RRFFQ69G5FAV" }),
      "not_found",
      /No decision has id/,
    );
    await fails(
      resolveDecision(ctx, CODEX, { ...base, superseded_by: other.id }),
      "invalid",
      /in workspace "x\/y", not "main"/,
    );
    await fails(
      resolveDecision(ctx, CODEX, { ...base, superseded_by: rejected.id }),
      "invalid",
      /was rejected/,
    );
    const ok = await resolveDecision(ctx, CODEX, { ...base, superseded_by: b.id });
    assert.equal(ok.decision.superseded_by, b.id);
  });
});

Deno.test("resolveDecision() refuses a superseded_by chain that leads back to the decision", async () => {
  await withTable(SECRET, async ({ ctx, kv }) => {
    const [a, b, c] = await Promise.all(
      ["A", "B", "C"].map(async (title) =>
        (await recordDecision(ctx, CODEX, { title, detail: "d" })).decision
      ),
    );
    const approve = { verdict: "approved" as const, reason: "r" };
    await resolveDecision(ctx, CODEX, { ...approve, decision_id: a.id, superseded_by: b.id });
    await fails(
      resolveDecision(ctx, CODEX, { ...approve, decision_id: b.id, superseded_by: a.id }),
      "invalid",
      new RegExp(
        `superseded_loop: superseded_by ${a.id} would make a loop: ${a.id} is superseded by ${b.id}`,
      ),
    );
    await resolveDecision(ctx, CODEX, { ...approve, decision_id: b.id, superseded_by: c.id });
    await fails(
      resolveDecision(ctx, CODEX, { ...approve, decision_id: c.id, superseded_by: a.id }),
      "invalid",
      new RegExp(`${a.id} is superseded by ${b.id} is superseded by ${c.id}`),
    );
    const stored = await kv.get<{ status: string }>(keys.decision(c.id));
    assert.equal(stored.value?.status, "proposed", "nothing changed");
  });
});

Deno.test("resolveDecision(): of two concurrent resolves that would make a loop, one wins", async () => {
  await withTable(SECRET, async ({ ctx }) => {
    for (let round = 0; round < 10; round++) {
      const [a, b, c] = await Promise.all(
        ["A", "B", "C"].map(async (title) =>
          (await recordDecision(ctx, CODEX, { title, detail: "d" })).decision
        ),
      );
      const approve = { verdict: "approved" as const, reason: "r" };
      // b → c first: a loop then needs a → b and c → a, racing.
      await resolveDecision(ctx, CODEX, { ...approve, decision_id: b.id, superseded_by: c.id });
      const outcomes = await Promise.allSettled([
        resolveDecision(ctx, CODEX, { ...approve, decision_id: a.id, superseded_by: b.id }),
        resolveDecision(ctx, CLAUDE, { ...approve, decision_id: c.id, superseded_by: a.id }),
      ]);
      const won = outcomes.filter((o) => o.status === "fulfilled");
      assert.equal(won.length, 1, `round ${round}`);
      const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
      assert.match((lost.reason as AppError).message, /would make a loop/);
    }
  });
});

Deno.test("setDecisionScope() needs an approved decision and a valid code; workspace scope is a standing rule", async () => {
  await withTable(SECRET, async ({ ctx }) => {
    const d = (await recordDecision(ctx, CODEX, { title: "Always test", detail: "d" })).decision;
    const code = SECRET.APPROVAL_SECRET;
    await fails(
      setDecisionScope(ctx, CODEX, { decision_id: d.id, scope: "workspace", approval_code: code }),
      "conflict",
      /is proposed: only an approved decision/,
    );
    await resolveDecision(ctx, OWNER, {
      decision_id: d.id,
      verdict: "approved",
      reason: "r",
      approval_code: code,
    });
    await fails(
      setDecisionScope(ctx, CODEX, { decision_id: d.id, scope: "workspace", approval_code: "x" }),
      "invalid",
      /does not match/,
    );
    const r = await setDecisionScope(ctx, OWNER, {
      decision_id: d.id,
      scope: "workspace",
      approval_code: code,
    });
    assert.equal(r.changed, true);
    assert.deepEqual((await standingRules(ctx, "main", 10)).map((x) => x.id), [d.id]);
    await setDecisionScope(ctx, OWNER, {
      decision_id: d.id,
      scope: "project",
      approval_code: code,
    });
    assert.deepEqual(await standingRules(ctx, "main", 10), []);
  });
});

Deno.test("getDecisions() lists newest first with has_more and total, filtered by status", async () => {
  await withTable({}, async ({ ctx }) => {
    for (let i = 0; i < 5; i++) await recordDecision(ctx, CODEX, { title: `D${i}`, detail: "d" });
    const all = await getDecisions(ctx, { limit: 2 });
    assert.deepEqual(all.decisions.map((d) => d.title), ["D4", "D3"]);
    assert.equal(all.has_more, true);
    assert.equal(all.total, 5);
    await resolveDecision(ctx, CODEX, {
      decision_id: all.decisions[0].id,
      verdict: "rejected",
      reason: "r",
    });
    const open = await getDecisions(ctx, { status: "proposed" });
    assert.equal(open.total, 4);
    assert.equal(open.has_more, false);
  });
});

Deno.test("a decision at the largest detail and reason still fits one KV value", async () => {
  const env = { ...SECRET, TABLE_MESSAGE_MAX_BYTES: "49152", TABLE_REASON_MAX_BYTES: "8192" };
  await withTable(env, async ({ ctx }) => {
    // One character outside Latin-1 would make a stored string two bytes per unit.
    const detail = "d".repeat(49152 - 4) + "😀";
    const reason = "r".repeat(8192 - 4) + "😀";
    const d = (await recordDecision(ctx, CODEX, { title: "t".repeat(200), detail })).decision;
    const r = await resolveDecision(ctx, OWNER, { decision_id: d.id, verdict: "approved", reason });
    assert.equal(r.decision.detail, detail);
    assert.equal(r.decision.reason, reason);
  });
});
