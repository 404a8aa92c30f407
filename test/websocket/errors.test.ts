import { describe, expect, it } from "vitest";
import { RemoteError, toWireError } from "../../adapters/websocket/shared/errors.js";
import { FunctaiError } from "../../src/errors.js";

const across = (e: unknown, of?: "request" | "turn") => new RemoteError(JSON.parse(JSON.stringify(toWireError(e, of))) as never);

describe("one error mapping on the wire, every code in ErrorCode", () => {
  it("a turn that failed reaches the companion with its own code: a tool's crash, a plain Error, a provider's refusal", () => {
    expect(across(new FunctaiError("tool-failed", "refund crashed: boom"), "turn")).toMatchObject({ code: "tool-failed", message: "refund crashed: boom" });
    expect(across(new Error("boom"), "turn")).toMatchObject({ code: "turn-failed", wireCode: "turn-failed", message: "boom" });
    expect(across(new FunctaiError("provider-auth", "the key was refused"), "turn").code).toBe("provider-auth");
  });

  it("a store's failure says only its code; a request's bug is remote-internal (never remote-protocol)", () => {
    expect(across(new FunctaiError("store-io", "EACCES /srv/secret/path"), "turn")).toMatchObject({ code: "store-io", message: "the store failed" });
    expect(across(new FunctaiError("store-io", "EACCES /srv/secret/path"))).toMatchObject({ code: "store-io", message: "the store failed" });
    expect(across(new TypeError("x is undefined"))).toMatchObject({ code: "remote-internal", message: "the server could not do this (see its log)" });
    expect(across(new FunctaiError("approval-answered", "already answered")).code).toBe("approval-answered");
  });

  it("a code this client does not know arrives as remote-protocol, keeping what was sent", () => {
    expect(new RemoteError({ code: "from-the-future", message: "?" })).toMatchObject({ code: "remote-protocol", wireCode: "from-the-future" });
  });
});
