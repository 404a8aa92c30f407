// Real Chromium: opening the database (see indexeddb-opening-cases.ts).
import { indexedDBOpeningCases } from "./indexeddb-opening-cases.js";

indexedDBOpeningCases();
