// Real Chromium: a batch array changed while its records' JSON is written (hunt 104; the cases: hunt104-batch-cases.ts;
// on fake-indexeddb in Node, with the file store's case: hunt104-batch-array.test.ts).
import { hunt104BatchCases } from "./hunt104-batch-cases.js";

hunt104BatchCases();
