import { FunctaiError, describeError } from "../../src/errors.js";

/** Where the store connects, with any password hidden: safe to put in a message. */
export function describeTarget(connectionString: string | undefined): string {
  if (connectionString === undefined) return "the given pool's server";
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "the given connection string";
  }
}

const FIXES: Record<string, string> = {
  "28P01": "the password (or user) is wrong: fix them in the connection string",
  "28000": "the server refuses this user or address (pg_hba.conf): use a role the server lets in",
  "3D000": "that database does not exist: create it or name another in the connection string",
  "42501": "the role lacks a privilege: grant it (for the schema: CREATE on the database), or create the schema beforehand",
  "57P03": "the server is starting up or shutting down: try again in a moment",
  "53300": "no connection slots are left (the server's max_connections, or the role's CONNECTION LIMIT): raise the limit or use fewer connections",
  "55000":
    "that database does not accept connections now (ALLOW_CONNECTIONS false, or it is being dropped): allow them (ALTER DATABASE … ALLOW_CONNECTIONS true) or name another",
};

/**
 * Turns an error of `pg` or the network into a `store-io` FunctaiError that
 * says what to fix (FunctaiErrors pass through unchanged). Never shows a password.
 */
export function storeIo(e: unknown, doing: string, target: string): FunctaiError {
  if (e instanceof FunctaiError) return e;
  const err = e as { code?: string; message?: string };
  const code = typeof err.code === "string" ? err.code : "";
  const message = describeError(e).replace(/:\/\/([^:@/]*):[^@/]*@/g, "://$1:***@");
  let fix: string;
  if (FIXES[code]) fix = FIXES[code];
  else if (code === "ECONNREFUSED") fix = "the connection was refused: is PostgreSQL running and listening at that host and port?";
  else if (code === "ENOTFOUND" || code === "EAI_AGAIN") fix = "that host name does not resolve: fix the host in the connection string";
  else if (/timeout/i.test(message)) fix = "no answer in time: check the host, port and network (a firewall that drops packets looks like this)";
  else if (/terminat|ECONNRESET|Connection terminated|closed/i.test(message + code))
    fix = "the connection was lost (a server restart or an administrator ended it): the operation may be retried";
  else fix = "see the server's message";
  return new FunctaiError("store-io", `PostgreSQL store (${target}): could not ${doing}: ${message} (${fix}).`, { cause: e });
}
