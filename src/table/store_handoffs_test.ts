import assert from "node:assert/strict";
import { AppError } from "../kit/errors.ts";
import { CLAUDE, CODEX, fails, OWNER, withTable } from "../../tests/support/table_mcp.ts";
import { countValue } from "./store_common.ts";
import { acceptHandoff, createHandoff, getHandoffs } from "./store_handoffs.ts";
import { keys } from "./store_schema.ts";
import { createTask, getTasks, updateTask } from "./store_tasks.ts";

Deno.test("createHandoff() reassigns the task in the same atomic and shows the pending handoff", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const t = (await createTask(ctx, CODEX, { title: "Fix", assigned_to: "codex" })).task;
    const r = await createHandoff(ctx, CODEX, {
      task_id: t.id,
      to: "Claude",
      context: "all of it",
    });
    assert.equal(r.handoff.state, "waiting");
    assert.equal(r.task.assigned_to, "Claude");
    assert.equal(r.task.handoff, r.handoff.id);
    assert.equal(r.task.note, undefined);
    assert.equal((await getTasks(ctx, {})).tasks[0].handoff, r.handoff.id);
    assert.equal(
      (await kv.get(keys.addressee("claude", "main", r.handoff.id))).value,
      r.handoff.id,
    );
    assert.equal(countValue(await kv.get(keys.count("main", "handoffs_pending"))), 1);
    await fails(
      createHandoff(ctx, CODEX, { task_id: t.id, to: "x", context: "c".repeat(48 * 1024 + 1) }),
      "too_large",
      /context is 49153 bytes \(UTF-8\); at most 49152 bytes \(TABLE_BODY_MAX_BYTES\)/,
    );
  });
});

Deno.test("handoff state is computed when read: waiting, stale, superseded, obsolete, accepted", async () => {
  await withTable({ TABLE_STALE_DAYS: "0.5" }, async ({ ctx, clock }) => {
    const t = (await createTask(ctx, CODEX, { title: "Fix" })).task;
    const first = (await createHandoff(ctx, CODEX, { task_id: t.id, to: "claude", context: "c" }))
      .handoff;
    const state = async (id: string) =>
      (await getHandoffs(ctx, {})).handoffs.find((h) => h.id === id)!.state;
    assert.equal(await state(first.id), "waiting");
    clock.advanceDays(0.4);
    assert.equal(await state(first.id), "waiting");
    clock.advanceDays(0.2);
    assert.equal(await state(first.id), "stale");
    const second = (await createHandoff(ctx, CODEX, { task_id: t.id, to: "gemini", context: "c" }))
      .handoff;
    assert.equal(await state(first.id), "superseded");
    assert.equal(await state(second.id), "waiting");
    await fails(
      acceptHandoff(ctx, CLAUDE, { handoff_id: first.id }),
      "conflict",
      new RegExp(`superseded: .*handoff ${second.id}`),
    );
    await updateTask(ctx, CODEX, { task_id: t.id, status: "done" });
    assert.equal(await state(second.id), "obsolete");
    await fails(acceptHandoff(ctx, OWNER, { handoff_id: second.id }), "conflict", /obsolete/);
    const t2 = (await createTask(ctx, CODEX, { title: "Other" })).task;
    const h = (await createHandoff(ctx, CODEX, { task_id: t2.id, to: "claude", context: "c" }))
      .handoff;
    await acceptHandoff(ctx, CLAUDE, { handoff_id: h.id });
    assert.equal(await state(h.id), "accepted");
    const filtered = await getHandoffs(ctx, { status: "accepted" });
    assert.deepEqual(filtered.handoffs.map((x) => x.id), [h.id]);
    assert.equal((await getHandoffs(ctx, { to: "CLAUDE" })).total, 2);
    assert.equal((await getHandoffs(ctx, { task_id: t.id })).total, 2);
    // A state filter and a field filter together: both must hold (both handoffs of t are obsolete).
    const both = await getHandoffs(ctx, { status: "obsolete", to: "claude" });
    assert.deepEqual(both.handoffs.map((x) => x.id), [first.id]);
    assert.equal((await getHandoffs(ctx, { status: "accepted", task_id: t.id })).total, 0);
  });
});

Deno.test("acceptHandoff() makes the caller the owner, in_progress; a second accept names the first", async () => {
  await withTable({}, async ({ ctx }) => {
    const t = (await createTask(ctx, CODEX, { title: "Fix" })).task;
    const h = (await createHandoff(ctx, CODEX, { task_id: t.id, to: "claude", context: "c" }))
      .handoff;
    const r = await acceptHandoff(ctx, CLAUDE, { handoff_id: h.id });
    assert.equal(r.task.status, "in_progress");
    assert.equal(r.task.assigned_to, "claude");
    assert.equal(r.task.handoff, null);
    assert.equal(r.task.note, undefined);
    assert.equal(r.warning, undefined);
    await fails(
      acceptHandoff(ctx, OWNER, { handoff_id: h.id }),
      "conflict",
      /already accepted by claude \(via header\) at 2026-03-01T09:00:00.000Z/,
    );
    const t2 = (await createTask(ctx, CODEX, { title: "Fix 2" })).task;
    const h2 = (await createHandoff(ctx, CODEX, { task_id: t2.id, to: "claude", context: "c" }))
      .handoff;
    const other = await acceptHandoff(ctx, OWNER, { handoff_id: h2.id });
    assert.match(other.warning!, /addressed to claude; you accepted it as owner/);
  });
});

Deno.test("a handoff addressed to the owner is accepted only by a caller proven to be them (issue 23, case 7)", async () => {
  await withTable({ OWNER_NAME: "Ada" }, async ({ ctx }) => {
    const handOff = async () => {
      const t = (await createTask(ctx, CODEX, { title: "Review" })).task;
      return (await createHandoff(ctx, CODEX, { task_id: t.id, to: "ada", context: "c" })).handoff;
    };
    const h = await handOff();
    for (
      const pretender of [
        { name: "ada", via: "default" },
        { name: "Ada", via: "header" },
        { name: "ada", via: "local" },
        { name: "Ada", via: "oauth", clientId: "client_x" },
        { name: "anonymous", via: "default" },
        { name: "codex", via: "token" },
      ] as const
    ) {
      await fails(
        acceptHandoff(ctx, pretender, { handoff_id: h.id }),
        "invalid",
        /^owner_only: .*addressed to ada, the owner \(OWNER_NAME\), and only the owner accepts it: in the owner console \(\/console\), or with a token of AUTH_TOKENS named Ada/,
      );
    }
    const byToken = await acceptHandoff(ctx, { name: "ADA", via: "token" }, { handoff_id: h.id });
    assert.equal(byToken.task.assigned_to, "ADA");
    const h2 = await handOff();
    const inConsole = await acceptHandoff(ctx, { name: "Ada", via: "console" }, {
      handoff_id: h2.id,
    });
    assert.equal(inConsole.handoff.accepted_by?.via, "console");
  });
});

Deno.test("acceptHandoff() racing: exactly one of two concurrent accepts wins", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    for (let round = 0; round < 5; round++) {
      const t = (await createTask(ctx, CODEX, { title: `T${round}` })).task;
      const h = (await createHandoff(ctx, CODEX, { task_id: t.id, to: "claude", context: "c" }))
        .handoff;
      const outcomes = await Promise.allSettled([
        acceptHandoff(ctx, CLAUDE, { handoff_id: h.id }),
        acceptHandoff(ctx, OWNER, { handoff_id: h.id }),
      ]);
      const won = outcomes.filter((o) => o.status === "fulfilled") as PromiseFulfilledResult<
        { task: { assigned_to: string | null } }
      >[];
      const lost = outcomes.filter((o) => o.status === "rejected") as PromiseRejectedResult[];
      assert.equal(won.length, 1);
      assert.ok(lost[0].reason instanceof AppError);
      assert.match(
        lost[0].reason.message,
        new RegExp(`accepted by ${won[0].value.task.assigned_to}`),
      );
    }
    assert.equal(countValue(await kv.get(keys.count("main", "handoffs_pending"))), 0);
    assert.equal(countValue(await kv.get(keys.count("main", "tasks_in_progress"))), 5);
  });
});

Deno.test("a done task cannot be handed off; reopening it brings its handoff back as waiting", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const t = (await createTask(ctx, CODEX, { title: "Fix" })).task;
    const h = (await createHandoff(ctx, CODEX, { task_id: t.id, to: "claude", context: "c" }))
      .handoff;
    await updateTask(ctx, CODEX, { task_id: t.id, status: "done" });
    assert.equal(countValue(await kv.get(keys.count("main", "handoffs_pending"))), 0);
    await fails(
      createHandoff(ctx, CODEX, { task_id: t.id, to: "x", context: "c" }),
      "conflict",
      /is done/,
    );
    await updateTask(ctx, CODEX, { task_id: t.id, status: "open" });
    assert.equal((await getHandoffs(ctx, {})).handoffs[0].state, "waiting");
    assert.equal((await getTasks(ctx, {})).tasks[0].handoff, h.id);
    assert.equal(countValue(await kv.get(keys.count("main", "handoffs_pending"))), 1);
  });
});

Deno.test("a handoff to bob\\u200B, a task for b\\u202Eob or a workspace with U+2066 is refused, naming the character", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const t = (await createTask(ctx, CODEX, { title: "Fix" })).task;
    const before = await Array.fromAsync(kv.list({ prefix: [] }));
    await fails(
      createHandoff(ctx, CODEX, { task_id: t.id, to: "bob\u200B", context: "c" }),
      "invalid",
      /to holds U\+200B, an invisible or direction-control character/,
    );
    await fails(
      createTask(ctx, CODEX, { title: "Fix", assigned_to: "b\u202Eob" }),
      "invalid",
      /assigned_to holds U\+202E/,
    );
    await fails(
      createTask(ctx, CODEX, { title: "Fix", workspace: "acme/\u2066shop" }),
      "invalid",
      /a workspace holds U\+2066/,
    );
    const after = await Array.fromAsync(kv.list({ prefix: [] }));
    assert.equal(after.length, before.length, "nothing was written");
  });
});
