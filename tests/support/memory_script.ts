/**
 * Random call sequences for the memory toolset, from a seed: creates, relations, observations,
 * deletes, duplicates and missing entities over a small pool of names, so calls collide often.
 * Each call stays inside what both the official server and ours define the same way (no name
 * twice in one `create_entities` call, no content twice in one `contents` list: upstream keeps
 * both copies there, an accident of its file format; see the README's list of differences).
 */

import { rng as random } from "./random.ts";

/** One tool call. */
export interface ScriptCall {
  name: string;
  arguments: Record<string, unknown>;
}

const NAMES = ["Ada", "Babbage", "Curie", "Darwin", "Euler", "Faraday", "Gauss", "Hopper"];
const TYPES = ["person", "scientist", "project"];
const FACTS = ["likes tea", "wrote notes", "東京で会議", "built an engine", "Café owner", "x"];
const LINKS = ["knows", "works with", "mentors"];

/** `count` calls from `seed`. */
export function memoryScript(seed: number, count: number): ScriptCall[] {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const some = <T>(xs: readonly T[], max: number) => {
    const n = 1 + Math.floor(rnd() * max);
    return [...new Set(Array.from({ length: n }, () => pick(xs)))];
  };
  const relation = () => ({ from: pick(NAMES), to: pick(NAMES), relationType: pick(LINKS) });
  const calls: ScriptCall[] = [];
  for (let i = 0; i < count; i++) {
    const r = rnd();
    if (r < 0.2) {
      const entities = some(NAMES, 3).map((name) => ({
        name,
        entityType: pick(TYPES),
        observations: some(FACTS, 2),
      }));
      calls.push({ name: "create_entities", arguments: { entities } });
    } else if (r < 0.35) {
      calls.push({ name: "create_relations", arguments: { relations: [relation(), relation()] } });
    } else if (r < 0.5) {
      const observations = some(NAMES, 2).map((entityName) => ({
        entityName,
        contents: some(FACTS, 3),
      }));
      calls.push({ name: "add_observations", arguments: { observations } });
    } else if (r < 0.58) {
      calls.push({ name: "delete_entities", arguments: { entityNames: some(NAMES, 2) } });
    } else if (r < 0.66) {
      const deletions = some(NAMES, 2).map((entityName) => ({
        entityName,
        observations: some(FACTS, 2),
      }));
      calls.push({ name: "delete_observations", arguments: { deletions } });
    } else if (r < 0.72) {
      calls.push({ name: "delete_relations", arguments: { relations: [relation(), relation()] } });
    } else if (r < 0.8) {
      calls.push({ name: "read_graph", arguments: {} });
    } else if (r < 0.9) {
      calls.push({
        name: "search_nodes",
        arguments: { query: pick(["a", "TEA", "東京", "café", "zz"]) },
      });
    } else {
      calls.push({ name: "open_nodes", arguments: { names: some([...NAMES, "Nobody"], 3) } });
    }
  }
  return calls;
}
