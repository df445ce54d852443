/**
 * svc_scrub's redaction (src/domains/inference/scrub.ts): every shape it promises is caught and
 * counted, look-alikes that fail their checksum or shape are left alone, and only the prompt's
 * text is touched (images, roles, ids and tool schemas pass unchanged).
 */
import { describe, expect, test } from "bun:test";
import { ibanValid, luhnValid } from "../../../src/core/redact.ts";
import { scrubPrompt, scrubText } from "../../../src/domains/inference/scrub.ts";

const redacts = (text: string, kind: string) => {
  const r = scrubText(text);
  expect(r.count).toBeGreaterThanOrEqual(1);
  expect(r.text).toContain(`[REDACTED:${kind}]`);
  return r;
};
const keeps = (text: string) => expect(scrubText(text)).toEqual({ text, count: 0 });

describe("secrets", () => {
  test("API keys of the common vendors", () => {
    for (const key of [
      "sk-proj-AbCdEf0123456789GhIjKlMn",
      "sk-ant-api03-AbCdEf0123456789GhIjKlMnOp",
      "sk_live_51HabcdefGHIJKLmnop0123",
      "sk-svc_0123456789abcdefghijklmnop",
      "AKIAIOSFODNN7EXAMPLE",
      "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
      "glpat-0123456789abcdefghij",
      "xoxb-123456789012-abcdefghijkl",
      "AIzaSyA0123456789abcdefghijklmnopqrstuv",
      "hf_abcdefghijklmnopqrstuvwxyz0123456789",
    ]) {
      const r = redacts(`use ${key} now`, "api_key");
      expect(r.text).toBe("use [REDACTED:api_key] now");
    }
  });

  test("named secrets keep their label: Bearer tokens, aws_secret_access_key, password=", () => {
    expect(scrubText("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345").text).toBe("Authorization: Bearer [REDACTED:api_key]");
    expect(scrubText("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").text).toBe("aws_secret_access_key = [REDACTED:api_key]");
    expect(scrubText('{"password": "hunter2hunter2"}').text).toBe('{"password": "[REDACTED:secret]"}');
    expect(scrubText("api_key=abc123def456ghi").text).toBe("api_key=[REDACTED:secret]");
  });

  test("private keys: PEM blocks (whole, or cut off) and 0x + 64 hex", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0123\nabcdef==\n-----END RSA PRIVATE KEY-----";
    expect(scrubText(`key:\n${pem}\nthanks`).text).toBe("key:\n[REDACTED:private_key]\nthanks");
    expect(scrubText("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA").text).toBe("[REDACTED:private_key]");
    expect(scrubText(`wallet 0x${"ab".repeat(32)} done`).text).toBe("wallet [REDACTED:private_key] done");
  });

  test("JWTs, whole", () => {
    expect(scrubText("t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U;").text).toBe("t=[REDACTED:jwt];");
  });
});

describe("PII", () => {
  test("emails", () => {
    expect(scrubText("write to first.last+tag@mail.example.co.uk today").text).toBe("write to [REDACTED:email] today");
  });

  test("card numbers only when the Luhn check passes", () => {
    expect(luhnValid("4111 1111 1111 1111")).toBe(true);
    expect(luhnValid("4111 1111 1111 1112")).toBe(false);
    expect(scrubText("pay with 4111-1111-1111-1111 please").text).toBe("pay with [REDACTED:card_number] please");
    expect(scrubText("amex 378282246310005").text).toBe("amex [REDACTED:card_number]");
    keeps("order 4111 1111 1111 1112 shipped"); // fails Luhn
    keeps("id 12345678");
  });

  test("IBANs only when the mod-97 check passes, spaced or not", () => {
    expect(ibanValid("DE89 3704 0044 0532 0130 00")).toBe(true);
    expect(scrubText("iban DE89 3704 0044 0532 0130 00 AND more").text).toBe("iban [REDACTED:iban] AND more");
    expect(scrubText("GB82WEST12345698765432").text).toBe("[REDACTED:iban]");
    keeps("DE00 3704 0044 0532 0130 00"); // wrong check digits
  });

  test("phone numbers, international and North American", () => {
    expect(scrubText("call +1 415 555 2671").text).toBe("call [REDACTED:phone]");
    expect(scrubText("call +44 20 7946 0958.").text).toBe("call [REDACTED:phone].");
    expect(scrubText("office (415) 555-2671").text).toBe("office [REDACTED:phone]");
    expect(scrubText("office 415-555-2671").text).toBe("office [REDACTED:phone]");
  });
});

describe("look-alikes are left alone", () => {
  test("dates, versions, prose, hashes without 0x, short numbers", () => {
    keeps("released 2024-01-15 as v1.2.3 at 10:30");
    keeps("use the sk-learn-compatible estimator");
    keeps("sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    keeps("room 101, floor 3, +5 points");
    keeps("the token: short");
  });

  test("counts every redaction", () => {
    expect(scrubText("a@b.io and c@d.io and sk-proj-0123456789abcdefghij").count).toBe(3);
  });
});

describe("what is scrubbed in a request", () => {
  test("text of messages and tool results; images, roles, ids, names and tool schemas untouched", () => {
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,QUtJQUlPU0ZPRE5ON0VYQU1QTEU=" } };
    const body = {
      model: "m",
      tools: [{ type: "function", function: { name: "mail", description: "send to ops@example.com", parameters: {} } }],
      messages: [
        { role: "system", content: "owner ops@example.com" },
        { role: "user", content: [{ type: "text", text: "my card 4111111111111111" }, image] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "mail", arguments: '{"to":"x@y.io"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "sent to x@y.io" },
      ],
    };
    const { body: out, count } = scrubPrompt("chat", body);
    expect(count).toBe(4);
    expect(out.messages[0]).toEqual({ role: "system", content: "owner [REDACTED:email]" });
    expect((out.messages[1] as any).content).toEqual([{ type: "text", text: "my card [REDACTED:card_number]" }, image]);
    expect((out.messages[2] as any).tool_calls[0]).toEqual({ id: "call_1", type: "function", function: { name: "mail", arguments: '{"to":"[REDACTED:email]"}' } });
    expect((out.messages[3] as any).tool_call_id).toBe("call_1");
    expect(out.tools).toBe(body.tools);
    expect(body.messages[0]!.content).toBe("owner ops@example.com"); // the caller's body is not modified
  });

  test("Responses instructions and input; Anthropic system blocks; embeddings token ids untouched", () => {
    expect(scrubPrompt("responses", { instructions: "mail a@b.io", input: [{ role: "user", content: [{ type: "input_text", text: "c@d.io" }] }] }).count).toBe(2);
    expect(scrubPrompt("messages", { system: [{ type: "text", text: "a@b.io" }], messages: [] }).body.system).toEqual([{ type: "text", text: "[REDACTED:email]" }]);
    expect(scrubPrompt("embeddings", { input: [[1, 2, 3]] })).toEqual({ body: { input: [[1, 2, 3]] }, count: 0 });
  });
});
