import { FunctaiError } from "../errors.js";
import type { Plugin } from "./types.js";

/**
 * Refuses two plugins of one name (`plugin-invalid`): a plugin's name keys
 * what it keeps in a turn's records (`keep`, shown back as `kept`) and the
 * approvals it asks for (their ids, and the answers found for them), so each
 * would be shown the other's (two otel() instances linked a resumed turn's
 * span to both first runs; a second question at one call was taken as
 * answered by the first's yes). The same plugin given twice is one plugin
 * (settings keep it once). Asked of each settings layer as it is given
 * (`configure`, `using`, a call's options) and of the layers merged, when a
 * turn starts.
 */
export function checkPluginNames(plugins: readonly Plugin[]): void {
  if (plugins.length < 2) return;
  const seen = new Set<string>();
  for (const { name } of new Set(plugins)) {
    if (!seen.has(name)) {
      seen.add(name);
      continue;
    }
    throw new FunctaiError(
      "plugin-invalid",
      `two plugins are named ${JSON.stringify(name)}: a plugin's name keys what it keeps in a turn's records and the approvals it asks for, so each must have its own; give one a name of its own ({ ...plugin, name: ${JSON.stringify(`${name}-2`)} }, kept for good: later runs of a turn find what it kept by it)${name === "otel" ? ", or give one otel() a tracer provider with both exporters" : ""}`,
    );
  }
}
