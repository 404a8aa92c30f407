// Real Chromium (its own structured clone): a stored record holding a value that is not JSON (hunt 63; the cases:
// fixtures/hunt63-json-cases.ts; on fake-indexeddb in Node: hunt63-json.test.ts).
import { hunt63JsonCases } from "./fixtures/hunt63-json-cases.js";

hunt63JsonCases();
