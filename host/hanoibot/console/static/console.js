// The console page: the Play view (drag, keyboard, undo/redo, Suggest, Solve) and the Robot view (live arm).
import { BoardView } from "./board.js";
import {
  LETTERS, RULES, applyMove, copyStacks, parseState, sameStacks, stateText, strongShuffle, tower, weakShuffle,
  whyIllegal,
} from "./puzzle.js";
import { CalibrationPanel } from "./calibrate.js";
import { LockPanel } from "./lock.js";
import { RobotPanel } from "./robot.js";

const stats = (window.__consoleStats = { latenciesMs: [], frameTimesMs: [], readyMs: null });
const $ = (id) => document.getElementById(id);
// The key that cancels a picked disk (Escape is the e-stop's and never doubles as cancel).
export const CANCEL_PICK_KEY = "Backspace";

// "1 disk", "3 disks".
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

// Time one Solve move takes, in ms, from the Speed list (0: one move per screen frame, no animation).
function solveMoveMs() {
  return Number($("solve-speed").value);
}

// The page's requests: JSON with the header a cross-site form cannot send (the token, when one is needed, is the
// HttpOnly cookie the server set on the first load).
export async function api(path, body) {
  const headers = { "Content-Type": "application/json", "X-Hanoibot-Request": "1" };
  const response = await fetch(path, body ? { method: "POST", headers, body: JSON.stringify(body) } : { headers });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

class Game {
  constructor() {
    this.view = null;
    this.history = [];
    this.future = [];
    this.solving = null;
    this.planSerial = 0;
    this.moveCount = 0;
  }

  puzzle() {
    return { disks: this.disks, pegs: this.pegs, rules: this.rules, state: stateText(this.stacks), goal: stateText(this.goal) };
  }

  say(text, bad = false) {
    const node = $("play-message");
    node.textContent = text;
    node.classList.toggle("bad", bad);
  }

  async newPuzzle() {
    this.stopSolving();
    const disks = Number($("disks").value);
    let pegs = Number($("pegs").value);
    const rules = $("rules").value;
    let start;
    let goal;
    let geometry = null;
    try {
      const kind = $("start").value;
      if (RULES[rules].perSize) {
        // A coloured puzzle: Disks counts sizes; start, goal and disk colours are the puzzle's own, on 3 pegs.
        pegs = 3;
        $("pegs").value = "3";
        geometry = await api(`/api/layout?puzzle=${rules}&disks=${disks}`);
        start = geometry.start;
        goal = geometry.goal;
      } else if (kind === "typed") start = parseState($("start-text").value, pegs, disks);
      else if (kind === "weak") start = weakShuffle(disks, pegs);
      else if (kind === "strong") start = strongShuffle(disks, pegs);
      else start = tower(disks, 0, pegs);
      const n = start.reduce((sum, s) => sum + s.length, 0);
      const goalText = $("goal-text").value.trim();
      if (!goal) goal = goalText ? parseState(goalText, pegs, n) : tower(n, pegs - 1, pegs);
      if (goal.reduce((sum, s) => sum + s.length, 0) !== n) throw new Error(`goal ${goalText} does not have ${n} disks`);
    } catch (err) {
      this.say(err.message, true);
      return;
    }
    this.disks = start.reduce((sum, s) => sum + s.length, 0);
    this.pegs = pegs;
    this.rules = rules;
    this.stacks = start;
    this.goal = goal;
    this.history = [];
    this.future = [];
    this.moveCount = 0;
    $("moves-left").textContent = "…";
    if (this.view) this.clearSuggestion();
    if (!geometry) geometry = await api(`/api/layout?pegs=${pegs}&disks=${Math.max(this.disks, 1)}`);
    this.view = new BoardView($("play-board"), geometry, {
      interactive: true,
      disks: this.disks,
      onDrop: (src, dst) => this.drop(src, dst),
      onPegActivate: (peg) => this.activatePeg(peg),
      isBusy: () => !!this.solving,
    });
    this.say(`New puzzle: ${this.disks} disks, ${pegs} pegs, ${this.rules} rules; goal ${stateText(goal)}.`);
    this.refresh();
  }

  refresh() {
    this.view.draw(this.stacks);
    $("move-count").textContent = String(this.moveCount);
    $("position").textContent = stateText(this.stacks);
    $("undo").disabled = !this.history.length || !!this.solving;
    $("redo").disabled = !this.future.length || !!this.solving;
    this.updateMovesLeft();
  }

  async updateMovesLeft() {
    const serial = ++this.planSerial;
    $("moves-left").textContent = "…";
    try {
      const answer = await api("/api/plan", this.puzzle());
      if (serial !== this.planSerial) return;
      $("moves-left").textContent = String(answer.moves_left);
      $("moves-left").title = answer.label;
      if (answer.moves_left === 0 && this.moveCount > 0) this.say(`Solved in ${plural(this.moveCount, "move")}.`);
    } catch (err) {
      if (serial === this.planSerial) $("moves-left").textContent = `— (${err.message})`;
    }
  }

  clearSuggestion() {
    this.view.suggestion = null;
    const node = $("suggestion");
    node.textContent = "";
    delete node.dataset.disk;
    delete node.dataset.src;
    delete node.dataset.dst;
  }

  // Move the top disk of src to dst if the rules allow it; returns true when it moved.
  tryMove(src, dst, how) {
    const reason = whyIllegal(this.stacks, src, dst, this.rules);
    if (reason) {
      this.say(`Refused: ${reason}.`, true);
      this.view.draw(this.stacks);
      return false;
    }
    const disk = this.stacks[src][this.stacks[src].length - 1];
    this.stacks = applyMove(this.stacks, src, dst);
    this.history.push({ disk, src, dst });
    this.future = [];
    this.moveCount = this.history.length;
    this.clearSuggestion();
    this.say(`${how}: disk ${disk} from peg ${LETTERS[src]} to peg ${LETTERS[dst]}.`);
    this.refresh();
    return true;
  }

  drop(src, dst) {
    this.view.selectedPeg = null;
    if (dst === null) {
      this.say("The disk went back: drop it with its centre close to a peg.", true);
      this.view.draw(this.stacks);
      return;
    }
    if (dst === src) {
      this.view.draw(this.stacks);
      return;
    }
    this.tryMove(src, dst, "Moved");
  }

  activatePeg(peg) {
    if (this.solving) return;
    const view = this.view;
    if (view.selectedPeg === null) {
      if (!this.stacks[peg].length) {
        this.say(`Peg ${LETTERS[peg]} is empty: pick a peg with disks.`, true);
        return;
      }
      view.selectedPeg = peg;
      const disk = this.stacks[peg][this.stacks[peg].length - 1];
      this.say(`Picked disk ${disk} from peg ${LETTERS[peg]}: choose the peg to put it on (Enter), or ` +
        `${CANCEL_PICK_KEY} to put it back.`);
      view.draw(this.stacks);
      return;
    }
    const src = view.selectedPeg;
    view.selectedPeg = null;
    if (src === peg) {
      this.say("Put back.");
      view.draw(this.stacks);
      return;
    }
    this.tryMove(src, peg, "Moved");
    view.pegNodes[peg].focus();
  }

  // Put a picked disk back (the cancel key); true when there was one.
  cancelPick() {
    if (!this.view || this.view.selectedPeg === null) return false;
    const peg = this.view.selectedPeg;
    this.view.selectedPeg = null;
    this.say(`Put back: disk ${this.stacks[peg][this.stacks[peg].length - 1]} stays on peg ${LETTERS[peg]}.`);
    this.view.draw(this.stacks);
    return true;
  }

  undo() {
    const move = this.history.pop();
    if (!move) return;
    this.stacks = applyMove(this.stacks, move.dst, move.src);
    this.future.push(move);
    this.moveCount = this.history.length; // an undone move is taken back, not counted again
    this.clearSuggestion();
    this.say(`Undone: disk ${move.disk} back to peg ${LETTERS[move.src]}.`);
    this.refresh();
  }

  redo() {
    const move = this.future.pop();
    if (!move) return;
    this.stacks = applyMove(this.stacks, move.src, move.dst);
    this.history.push(move);
    this.moveCount = this.history.length;
    this.clearSuggestion();
    this.say(`Redone: disk ${move.disk} to peg ${LETTERS[move.dst]}.`);
    this.refresh();
  }

  async suggest() {
    try {
      const answer = await api("/api/plan", this.puzzle());
      const node = $("suggestion");
      if (!answer.next) {
        this.clearSuggestion();
        node.textContent = "Solved: nothing left to move.";
        return;
      }
      const { disk, src, dst } = answer.next;
      this.view.suggestion = answer.next;
      node.dataset.disk = disk;
      node.dataset.src = LETTERS[src];
      node.dataset.dst = LETTERS[dst];
      node.textContent = `Suggested (${answer.label}): disk ${disk} from peg ${LETTERS[src]} to peg ${LETTERS[dst]}` +
        ` — ${answer.moves_left} moves left.`;
      this.view.draw(this.stacks);
    } catch (err) {
      this.say(`No suggestion: ${err.message}`, true);
    }
  }

  // --- Solve: animate the planner's moves from here, pausable and steppable ---
  async solve(startPaused = false) {
    this.stopSolving();
    this.clearSuggestion();
    if (this.view) this.view.selectedPeg = null;
    const solving = { queue: [], paused: startPaused, stepping: startPaused, movesLeft: null };
    this.solving = solving;
    $("solve-pause").setAttribute("aria-pressed", String(startPaused));
    $("solve-pause").textContent = startPaused ? "Resume" : "Pause";
    this.refresh();
    this.say("Solving…");
    while (this.solving === solving) {
      if (!solving.queue.length) {
        if (sameStacks(this.stacks, this.goal)) break;
        try {
          const answer = await api("/api/plan", { ...this.puzzle(), limit: 2000 });
          solving.queue = answer.moves;
          solving.label = answer.label;
          solving.movesLeft = answer.moves_left;
        } catch (err) {
          this.say(`Cannot solve from here: ${err.message}`, true);
          break;
        }
        if (!solving.queue.length) break;
      }
      if (solving.paused && !solving.stepping) {
        await new Promise((resolve) => (solving.wake = resolve));
        continue;
      }
      solving.stepping = false;
      const move = solving.queue.shift();
      await this.animateMove(move, solveMoveMs(), solving);
      if (this.solving !== solving) return;
      this.stacks = applyMove(this.stacks, move.src, move.dst);
      this.history.push({ disk: move.disk, src: move.src, dst: move.dst });
      this.future = [];
      this.moveCount = this.history.length;
      this.view.draw(this.stacks);
      $("move-count").textContent = String(this.moveCount);
      $("position").textContent = stateText(this.stacks);
      // Each move of the plan leaves one fewer: the count stays the planner's without asking it every move.
      solving.movesLeft -= 1;
      this.planSerial += 1; // an answer still on its way is for an older position
      $("moves-left").textContent = String(solving.movesLeft);
    }
    if (this.solving === solving) {
      this.solving = null;
      if (sameStacks(this.stacks, this.goal)) this.say(`Solved: the goal ${stateText(this.goal)} is reached.`);
      this.refresh();
    }
  }

  // Play `move` on the screen in `durationMs` (0: one frame, no animation); a Pause holds the disk where it is
  // until Resume, or until Step plays the held move to its end.
  animateMove(move, durationMs, solving) {
    const view = this.view;
    if (durationMs <= 0) {
      let isStep = solving.paused;
      return new Promise((resolve) => {
        const frame = (now) => {
          if (this.solving === solving && solving.paused && !isStep) {
            if (!solving.stepping) {
              requestAnimationFrame(frame); // paused: wait for Resume or Step
              return;
            }
            isStep = true; // this Step is spent on this move
            solving.stepping = false;
          }
          stats.frameTimesMs.push(now);
          resolve();
        };
        requestAnimationFrame(frame);
      });
    }
    const from = view.diskCentre(move.src, this.stacks[move.src].length - 1);
    const to = view.diskCentre(move.dst, this.stacks[move.dst].length);
    const lift = view.liftHeight();
    const legs = [Math.abs(lift - from.z), Math.abs(to.u - from.u), Math.abs(lift - to.z)];
    const total = legs[0] + legs[1] + legs[2] || 1;
    const at = (s) => {
      let d = s * total;
      if (d <= legs[0]) return { u: from.u, z: from.z + (lift - from.z) * (legs[0] ? d / legs[0] : 1) };
      d -= legs[0];
      if (d <= legs[1]) return { u: from.u + (to.u - from.u) * (legs[1] ? d / legs[1] : 1), z: lift };
      d -= legs[1];
      return { u: to.u, z: lift + (to.z - lift) * (legs[2] ? d / legs[2] : 1) };
    };
    return new Promise((resolve) => {
      let start = null;
      let elapsed = 0;
      let last = null;
      let isStep = solving.paused; // a Step plays its move to the end; a Pause holds the disk mid-air
      const frame = (now) => {
        if (this.solving !== solving) {
          view.floating = null;
          resolve();
          return;
        }
        stats.frameTimesMs.push(now);
        if (start === null) start = now;
        if (solving.paused && !isStep && solving.stepping) {
          isStep = true; // Step after Pause: this held move goes to its end, and that is the step
          solving.stepping = false;
        }
        if (solving.paused && !isStep && last !== null) start += now - last; // hold the disk where it is while paused
        last = now;
        elapsed = now - start;
        const s = Math.min(1, elapsed / durationMs);
        const eased = s < 0.5 ? 2 * s * s : 1 - (-2 * s + 2) ** 2 / 2;
        view.floating = { disk: move.disk, ...at(eased) };
        view.draw(this.stacks);
        if (s < 1) requestAnimationFrame(frame);
        else {
          view.floating = null;
          resolve();
        }
      };
      requestAnimationFrame(frame);
    });
  }

  togglePause() {
    const solving = this.solving;
    if (!solving) return;
    solving.paused = !solving.paused;
    $("solve-pause").setAttribute("aria-pressed", String(solving.paused));
    $("solve-pause").textContent = solving.paused ? "Resume" : "Pause";
    this.say(solving.paused ? "Paused: Step plays one move, Resume goes on." : "Solving…");
    if (!solving.paused && solving.wake) solving.wake();
  }

  step() {
    const solving = this.solving;
    if (!solving) {
      this.solve(true);
      return;
    }
    if (!solving.paused) this.togglePause();
    solving.stepping = true;
    if (solving.wake) solving.wake();
  }

  stopSolving() {
    const solving = this.solving;
    this.solving = null;
    if (solving && solving.wake) solving.wake();
    if (this.view) this.view.floating = null;
  }
}

function fillSelect(id, from, to, chosen) {
  const select = $(id);
  for (let v = from; v <= to; v++) {
    const option = document.createElement("option");
    option.value = String(v);
    option.textContent = String(v);
    if (v === chosen) option.selected = true;
    select.appendChild(option);
  }
}

async function main() {
  fillSelect("disks", 1, 12, 4);
  fillSelect("pegs", 3, 8, 3);
  const game = new Game();
  window.__game = game;
  $("setup").addEventListener("submit", (ev) => {
    ev.preventDefault();
    game.newPuzzle();
  });
  $("start").addEventListener("change", () => {
    if ($("start").value === "typed") $("start-text").focus();
  });
  $("undo").addEventListener("click", () => game.undo());
  $("redo").addEventListener("click", () => game.redo());
  $("suggest").addEventListener("click", () => game.suggest());
  $("solve").addEventListener("click", () => game.solve());
  $("solve-pause").addEventListener("click", () => game.togglePause());
  $("solve-step").addEventListener("click", () => game.step());
  const robot = new RobotPanel({ stats, game });
  window.__robot = robot;
  window.__calibration = new CalibrationPanel(robot);
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      robot.estop(); // only the e-stop: a picked disk stays picked
    } else if (ev.key === CANCEL_PICK_KEY && !/^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) {
      if (game.cancelPick()) ev.preventDefault();
    }
  });
  $("estop").addEventListener("click", () => robot.estop());
  fillSelect("lock-length", 2, 16, 7);
  const lock = new LockPanel({ api });
  window.__lock = lock;
  await Promise.all([game.newPuzzle(), robot.start(), lock.begin()]);
  stats.readyMs = performance.now();
  document.body.dataset.ready = "true";
}

main();
