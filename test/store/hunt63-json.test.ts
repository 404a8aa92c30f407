// fake-indexeddb in Node (its structured clone is Node's): a stored record holding a value that is not JSON (hunt 63;
// the cases: fixtures/hunt63-json-cases.ts; in real Chromium: hunt63-json.browser.test.ts).
import "fake-indexeddb/auto";
import { hunt63JsonCases } from "./fixtures/hunt63-json-cases.js";

hunt63JsonCases();
