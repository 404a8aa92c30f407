/**
 * A child process for hunt14 tests: `hunt14-append-child.ts <dir> <conversation> <record JSON>`
 * appends that one record with a store of its own, prints "appended <length>", and exits.
 */
import { fsStore } from "../../adapters/node-fs/index.js";

const [dir, conversation, json] = process.argv.slice(2);
if (dir === undefined || conversation === undefined || json === undefined)
  throw new Error("usage: hunt14-append-child.ts <dir> <conversation> <record JSON>");
const length = await fsStore(dir).append(conversation, [JSON.parse(json) as object]);
process.stdout.write(`appended ${length}\n`);
