// fake-indexeddb in Node: opening the database (see indexeddb-opening-cases.ts); the real check is Chromium.
import "fake-indexeddb/auto";
import { indexedDBOpeningCases } from "./indexeddb-opening-cases.js";

indexedDBOpeningCases();
