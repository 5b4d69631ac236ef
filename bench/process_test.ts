import assert from "node:assert/strict";
import { processCpuMs, processTicksMs } from "./process.ts";

/** A child that spins until it has used `ms` of CPU, says so, and waits to be killed. */
async function spinner(ms: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
       while (used() < ${ms}); console.log("spun"); setTimeout(() => {}, 60_000);`,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("spun")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the spinner ended early");
    out += value;
  }
  return {
    pid: child.pid,
    async stop() {
      child.kill();
      await child.status;
      await reader.cancel();
    },
  };
}

/** Whether this kernel keeps the per-thread scheduler counts the reader uses. */
function schedstatKept(): boolean {
  try {
    Deno.readTextFileSync("/proc/self/schedstat");
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "processCpuMs() agrees with the kernel's tick count, finer than a tick",
  ignore: !schedstatKept(),
}, async () => {
  const child = await spinner(300);
  try {
    const precise = await processCpuMs(child.pid);
    const ticks = await processTicksMs(child.pid);
    assert.ok(ticks >= 250, `the spin used ${ticks} ms by ticks`);
    // Each count rounds on its own: within two ticks of each other.
    assert.ok(Math.abs(precise - ticks) <= 20, `${precise} ms against ${ticks} ms by ticks`);
    // Not a whole number of 10 ms ticks: the nanosecond count (one chance in ten million).
    assert.notEqual(precise % 10, 0);
  } finally {
    await child.stop();
  }
});
