import assert from "node:assert/strict";
import { MASK, maskSecrets } from "./mask.ts";

const SECRETS: [string, string, string][] = [
  ["anthropic", `sk-ant-api03-${"A1b2C3d4E5".repeat(8)}`, "sk-ant-[masked]"],
  ["openai", `sk-proj-${"Zy9Xw8Vu7T".repeat(4)}`, "sk-[masked]"],
  ["github classic", `ghp_${"aB3dE6gH9j".repeat(4)}`, "ghp_[masked]"],
  ["github fine-grained", `github_pat_11ABCDEFG0_${"x".repeat(59)}`, "github_pat_[masked]"],
  ["aws", "AKIAIOSFODNN7EXAMPLE", "AKIA[masked]"],
  ["slack", "xoxb-1234567890-0987654321-AbCdEfGhIjKl", "xoxb-[masked]"],
  ["google", `AIza${"SyA1b2C3d4".repeat(3)}abcde`, "AIza[masked]"],
  [
    "jwt",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
    "[masked]",
  ],
  ["bearer", "Bearer abcdefghijklmnop1234", "Bearer [masked]"],
  [
    "url token",
    "http://127.0.0.1:8787/Zq3vK9mW2xR7tL5nB8cD4fG6hJ1kP0sA/mcp",
    "http://127.0.0.1:8787/[masked]/mcp",
  ],
  ["password", 'password: "hunter2hunter2"', 'password: "[masked]"'],
  ["env assignment", "OPENAI_API_KEY=abcdefgh12345678", "OPENAI_API_KEY=[masked]"],
  [
    "private key",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
    "[masked]",
  ],
];

for (const [name, secret, masked] of SECRETS) {
  Deno.test(`maskSecrets() masks a ${name} secret, keeping only its kind`, () => {
    const out = maskSecrets(`before ${secret} after`);
    assert.equal(out, `before ${masked} after`);
    assert.ok(!out.includes(secret.slice(-8)), "no tail of the secret survives");
  });
}

Deno.test("maskSecrets() leaves ordinary text, Japanese, Thai and short words alone", () => {
  const text =
    "Fix the sk- prefix check in task-runner; 北極星は「v1を出す」; ทดสอบ ผ่าน; token: short; Bearer of news";
  assert.equal(maskSecrets(text), text);
});

Deno.test("maskSecrets() masks exact values it is given, ignoring ones too short to be secrets", () => {
  assert.equal(maskSecrets("t=myownsecret1 and abc", ["myownsecret1", "abc"]), `t=${MASK} and abc`);
});

Deno.test("maskSecrets() gives the same text when run again on its output", () => {
  const once = maskSecrets(SECRETS.map((s) => s[1]).join("\n"));
  assert.equal(maskSecrets(once), once);
});
