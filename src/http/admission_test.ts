import assert from "node:assert/strict";
import { AppError } from "../kit/errors.ts";
import { bodyBytes, LARGE_BODY_BYTES, loadAdmissionSettings, WriteAdmission } from "./admission.ts";

const KIB = 1024;
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("WriteAdmission admits large bodies up to the budget, the rest in arrival order", async () => {
  let collected = 0;
  const admission = new WriteAdmission(
    { budgetBytes: 320 * KIB, waitMs: 10_000 },
    () => collected++,
  );
  const a = await admission.admit(100 * KIB);
  const b = await admission.admit(150 * KIB);
  assert.equal(admission.inFlight, 250 * KIB);
  const order: string[] = [];
  const c = admission.admit(100 * KIB).then((r) => (order.push("c"), r));
  const d = admission.admit(64 * KIB).then((r) => (order.push("d"), r));
  const small = await admission.admit(LARGE_BODY_BYTES - 1);
  small();
  await tick();
  assert.deepEqual(order, [], "a small body passes; large ones wait, even one that would fit");
  a();
  await tick();
  assert.deepEqual(order, ["c", "d"], "released room goes to the waiters in arrival order");
  assert.equal(admission.inFlight, 314 * KIB);
  b();
  (await c)();
  (await d)();
  assert.equal(admission.inFlight, 0);
  await tick();
  assert.ok(collected >= 1, "garbage is let go after a budget's worth");
});

Deno.test("WriteAdmission refuses a body that waited WRITE_WAIT_MS as busy, naming both settings", async () => {
  const admission = new WriteAdmission({ budgetBytes: 100 * KIB, waitMs: 50 }, () => {});
  const held = await admission.admit(100 * KIB);
  const refused = await admission.admit(80 * KIB).then(() => undefined, (e) => e);
  assert.ok(refused instanceof AppError);
  assert.equal(refused.kind, "busy");
  assert.match(
    refused.message,
    /^Server busy: other large writes fill WRITE_BUDGET_BYTES \(102400 bytes in flight\); this request of 81920 bytes waited WRITE_WAIT_MS \(50 ms\) and was not read\. Nothing was written: retry in a moment\.$/,
  );
  held();
  assert.equal(admission.inFlight, 0, "the refused body holds nothing");
  const next = await admission.admit(80 * KIB);
  next();
});

Deno.test("WriteAdmission runs a body larger than the whole budget alone, never refusing it for size", async () => {
  const admission = new WriteAdmission({ budgetBytes: 64 * KIB, waitMs: 10_000 }, () => {});
  const huge = await admission.admit(1024 * KIB);
  let second = false;
  const waiting = admission.admit(64 * KIB).then((r) => (second = true, r));
  await tick();
  assert.equal(second, false);
  huge();
  huge(); // a second release changes nothing
  (await waiting)();
  assert.equal(admission.inFlight, 0);
});

Deno.test("bodyBytes() is the declared length, the request limit for a chunked body, 0 for GET", () => {
  const post = (headers: Record<string, string>) =>
    new Request("http://x/mcp", { method: "POST", headers });
  assert.equal(bodyBytes(post({ "content-length": "123456" }), 4_000_000), 123456);
  assert.equal(bodyBytes(post({ "content-length": "9999999" }), 4_000_000), 9999999);
  assert.equal(bodyBytes(post({ "transfer-encoding": "chunked" }), 4_000_000), 4_000_000);
  assert.equal(bodyBytes(new Request("http://x/sse"), 4_000_000), 0);
});

Deno.test("loadAdmissionSettings() reads WRITE_BUDGET_BYTES and WRITE_WAIT_MS, naming a bad one", () => {
  assert.deepEqual(loadAdmissionSettings(new Map()), {
    budgetBytes: 4 * 1024 * KIB,
    waitMs: 30_000,
  });
  assert.deepEqual(
    loadAdmissionSettings(new Map([["WRITE_BUDGET_BYTES", "65536"], ["WRITE_WAIT_MS", "0"]])),
    { budgetBytes: 65536, waitMs: 0 },
  );
  assert.throws(
    () => loadAdmissionSettings(new Map([["WRITE_BUDGET_BYTES", "10"]])),
    /WRITE_BUDGET_BYTES/,
  );
});

Deno.test("WriteAdmission lets garbage go once large bodies stop, not while one still runs", async () => {
  let collected = 0;
  const admission = new WriteAdmission(
    { budgetBytes: 1024 * 1024 * KIB, waitMs: 1_000 },
    () => collected++,
  );
  const first = await admission.admit(64 * KIB);
  const second = await admission.admit(64 * KIB);
  first();
  await new Promise((resolve) => setTimeout(resolve, 700));
  assert.equal(collected, 0, "one is still in flight");
  second();
  await new Promise((resolve) => setTimeout(resolve, 700));
  assert.equal(collected, 1, "collected once, after a quiet spell");
});
