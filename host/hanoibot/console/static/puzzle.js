// The puzzle as the page plays it: stacks of disks per peg (bottom first), rules, state strings.
// Mirrors hanoibot.puzzle (Rules.check_move words, seed notation: one peg letter per disk, smallest first).

export const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
export const RULES = {
  classic: { topology: "any", bigOnTop: false },
  linear: { topology: "linear", bigOnTop: false },
  cyclic: { topology: "cyclic", bigOnTop: false },
  "big-on-top": { topology: "linear", bigOnTop: true },
  // The coloured puzzles (hanoibot.puzzle.colours): perSize disks of each size, numbered size first; a disk may
  // land on one of its own size. Their start and goal come from the server (/api/layout?puzzle=...).
  bicolor: { topology: "any", bigOnTop: false, perSize: 2 },
  tricolor: { topology: "any", bigOnTop: false, perSize: 3 },
};

// The size (1 = smallest) of disk number `disk` when there are `perSize` disks of each size.
export function sizeOf(disk, perSize = 1) {
  return Math.floor((disk - 1) / perSize) + 1;
}

export function tower(nDisks, peg, pegs) {
  const stacks = Array.from({ length: pegs }, () => []);
  for (let d = nDisks; d >= 1; d--) stacks[peg].push(d);
  return stacks;
}

export function copyStacks(stacks) {
  return stacks.map((s) => s.slice());
}

export function diskCount(stacks) {
  return stacks.reduce((sum, s) => sum + s.length, 0);
}

export function top(stacks, peg) {
  const s = stacks[peg];
  return s.length ? s[s.length - 1] : null;
}

export function isRegular(stacks) {
  return stacks.every((s) => s.every((d, i) => i === 0 || s[i - 1] > d));
}

// The state string: compact (ACAB) for regular stacks, else the per-peg form bottom first (A:3,1,2/B:4/C:).
export function stateText(stacks) {
  if (!isRegular(stacks)) {
    return stacks.map((s, p) => `${LETTERS[p]}:${s.join(",")}`).join("/");
  }
  const pegOf = [];
  stacks.forEach((s, p) => s.forEach((d) => (pegOf[d - 1] = LETTERS[p])));
  return pegOf.join("");
}

// Parse a typed state for `pegs` pegs: compact letters, per-peg form, or one letter = the tower of nDisks there.
// Returns stacks, or throws an Error whose message names the bad text.
export function parseState(text, pegs, nDisks) {
  const t = text.trim().toUpperCase();
  const allowed = LETTERS.slice(0, pegs);
  if (t.length === 1 && allowed.includes(t)) return tower(nDisks, allowed.indexOf(t), pegs);
  if (t.includes(":")) {
    const stacks = Array.from({ length: pegs }, () => []);
    const seen = new Set();
    for (const part of t.split("/")) {
      const [letter, list] = part.split(":");
      const p = allowed.indexOf(letter.trim());
      if (p < 0) throw new Error(`peg ${letter} in ${text} is not one of ${allowed}`);
      for (const item of list.split(",").filter((x) => x.trim())) {
        const d = Number(item);
        if (!Number.isInteger(d) || d < 1 || seen.has(d)) throw new Error(`disk ${item} in ${text} is invalid`);
        seen.add(d);
        stacks[p].push(d);
      }
    }
    const n = seen.size;
    for (let d = 1; d <= n; d++) if (!seen.has(d)) throw new Error(`${text} lacks disk ${d}`);
    return stacks;
  }
  if (!t || [...t].some((c) => !allowed.includes(c))) {
    throw new Error(`state ${text} is invalid: expected one of the letters ${allowed} per disk, smallest first`);
  }
  const stacks = Array.from({ length: pegs }, () => []);
  for (let d = t.length; d >= 1; d--) stacks[allowed.indexOf(t[d - 1])].push(d);
  return stacks;
}

// Why moving the top disk of `src` to `dst` is illegal under `rulesName`, or null when it is legal.
export function whyIllegal(stacks, src, dst, rulesName) {
  const rules = RULES[rulesName];
  const pegs = stacks.length;
  const disk = top(stacks, src);
  if (disk === null) return `peg ${LETTERS[src]} has no disk to move`;
  if (src === dst) return `disk ${disk} is already on peg ${LETTERS[dst]}`;
  const name = rulesName === "big-on-top" ? "big-on-top" : rulesName;
  let allowed = true;
  if (rules.topology === "linear") allowed = Math.abs(src - dst) === 1;
  if (rules.topology === "cyclic") allowed = dst === (src + 1) % pegs;
  if (!allowed) return `disk ${disk} may not move from ${LETTERS[src]} to ${LETTERS[dst]} under ${name} rules`;
  const onto = top(stacks, dst);
  const perSize = rules.perSize || 1;
  const sameSize = perSize > 1 && onto !== null && sizeOf(disk, perSize) === sizeOf(onto, perSize);
  const mayLand = onto === null || disk < onto || sameSize || (rules.bigOnTop && disk === diskCount(stacks));
  if (!mayLand) return `disk ${disk} may not be put on smaller disk ${onto} on peg ${LETTERS[dst]}`;
  return null;
}

export function applyMove(stacks, src, dst) {
  const next = copyStacks(stacks);
  next[dst].push(next[src].pop());
  return next;
}

export function sameStacks(a, b) {
  return a.length === b.length && a.every((s, p) => s.length === b[p].length && s.every((d, i) => d === b[p][i]));
}

function randomInt(n) {
  return Math.floor(Math.random() * n);
}

// Weakly shuffled: every disk on a random peg, each stack in order (a legal position).
export function weakShuffle(nDisks, pegs) {
  const stacks = Array.from({ length: pegs }, () => []);
  for (let d = nDisks; d >= 1; d--) stacks[randomInt(pegs)].push(d);
  return stacks;
}

// Strongly shuffled: disks in random order on random pegs (larger disks may sit on smaller ones).
export function strongShuffle(nDisks, pegs) {
  const disks = Array.from({ length: nDisks }, (_, i) => i + 1);
  for (let i = disks.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [disks[i], disks[j]] = [disks[j], disks[i]];
  }
  const stacks = Array.from({ length: pegs }, () => []);
  for (const d of disks) stacks[randomInt(pegs)].push(d);
  return stacks;
}
