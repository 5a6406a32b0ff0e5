// The Robot view: live state over the WebSocket, the arm drawn from the server's geometry, robot commands.
import { BoardView } from "./board.js";
import { stateText } from "./puzzle.js";

const $ = (id) => document.getElementById(id);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function formatSeconds(s) {
  if (s === null || s === undefined) return "";
  if (s < 60) return `${Math.round(s)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

export class RobotPanel {
  constructor({ stats, game }) {
    this.stats = stats;
    this.game = game;
    this.controls = false;
    this.state = null;
    this.view = null;
    this.listeners = []; // called with (state, controls) after every change: the calibration panel
  }

  async start() {
    const info = await (await fetch("/api/robot")).json();
    $("robot-port").textContent = `on ${info.port}`;
    this.view = new BoardView($("robot-board"), info.geometry, { interactive: false });
    this.view.draw(info.geometry.peg_u_mm.map(() => []), { arm: info.geometry.home_arm_mm });
    this.view.svg.classList.add("offline");
    for (const button of document.querySelectorAll("#robot [data-command]")) {
      button.addEventListener("click", () => this.command(button.dataset.command));
    }
    this.update();
    await this.connectSocket();
  }

  connectSocket() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return new Promise((resolve) => {
      const socket = new WebSocket(`${scheme}://${location.host}/ws`);
      this.socket = socket;
      socket.addEventListener("message", (ev) => {
        const message = JSON.parse(ev.data);
        if (message.type === "role") {
          this.onRole(message);
          resolve();
        } else if (message.type === "robot") this.onState(message);
        else if (message.type === "error") this.say(message.message, true);
      });
      socket.addEventListener("close", () => {
        $("role").textContent = "the console server went away: reload the page when it runs again";
        this.controls = false;
        this.update();
        resolve();
      });
    });
  }

  say(text, bad = false) {
    const node = $("robot-message");
    node.textContent = text;
    node.classList.toggle("bad", bad);
  }

  send(name, options = {}) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
      this.say("not connected to the console server", true);
      return;
    }
    this.socket.send(JSON.stringify({ type: "command", name, options }));
  }

  estop() {
    this.send("estop");
    this.say("E-stop sent.", true);
  }

  command(name) {
    const game = this.game;
    if (name === "connect") this.send("connect", { state: stateText(game.stacks), pegs: game.pegs });
    else if (name === "run") this.send("run", { rules: game.rules, goal: stateText(game.goal), pegs: game.pegs });
    else if (name === "play_move") {
      const last = game.history[game.history.length - 1];
      if (!last) {
        this.say("Make a move on the Play board first; this button plays it on the arm.", true);
        return;
      }
      this.send("play_move", { disk: last.disk, src: last.src, dst: last.dst, rules: game.rules });
    } else this.send(name);
  }

  onRole(message) {
    this.controls = message.controls;
    $("role").textContent = message.controls
      ? `You control the arm (${message.you}); ${plural(message.watchers, "other tab")} watching.`
      : `Read-only: ${message.controller} controls the arm. You can watch; E-stop still works.`;
    document.body.dataset.role = message.controls ? "control" : "watch";
    this.update();
  }

  onState(state) {
    this.stats.latenciesMs.push(performance.timeOrigin + performance.now() - state.t_report_ms);
    this.state = state;
    this.view.svg.classList.toggle("offline", !state.connected);
    this.view.draw(state.board.length ? state.board : this.view.g.peg_u_mm.map(() => []), {
      arm: state.arm_mm.length ? state.arm_mm : this.view.g.home_arm_mm,
      held: state.held,
    });
    $("robot-phase").textContent = state.busy && state.phase === "idle" ? state.busy : state.phase;
    $("robot-mode").textContent = state.mode || "–";
    $("robot-board-text").textContent = state.board_text || "–";
    $("robot-retransmits").textContent = String(state.retransmits);
    $("robot-journal").textContent = state.journal || "–";
    const progress = $("robot-progress");
    progress.max = Math.max(state.moves_total, 1);
    progress.value = state.moves_done;
    const eta = state.eta_s !== null && state.moves_done < state.moves_total ? ` · ETA ${formatSeconds(state.eta_s)}` : "";
    $("robot-progress-text").textContent = `${state.moves_done} of ${state.moves_total} moves${eta}`;
    const faults = $("robot-faults");
    faults.innerHTML = "";
    for (const text of state.faults) {
      const item = document.createElement("li");
      item.textContent = text;
      faults.appendChild(item);
    }
    this.ask(state.question);
    if (state.error) this.say(state.error, true);
    else if (state.message) this.say(state.message);
    document.body.dataset.robotPhase = state.phase;
    this.update();
  }

  // After a reset let a carried disk go: one button per peg it may lie on; the answer sets the arm's board.
  ask(question) {
    const box = $("robot-question");
    const key = question ? `${question.disk}:${question.pegs.join("")}` : "";
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.hidden = !question;
    const pegs = $("robot-question-pegs");
    pegs.innerHTML = "";
    if (!question) return;
    $("robot-question-text").textContent = question.text;
    for (const peg of question.pegs) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `Disk ${question.disk} is on peg ${peg}`;
      button.disabled = !this.controls;
      button.addEventListener("click", () => this.send("answer", { peg }));
      pegs.appendChild(button);
    }
  }

  update() {
    const state = this.state;
    const connected = !!(state && state.connected);
    const running = !!(state && state.busy === "running");
    const paused = !!(state && state.phase === "paused");
    // A latched e-stop or fault: nothing moves until Clear, so the buttons that would move the arm wait for it.
    const latched = !!(state && state.latched);
    const enable = {
      "r-connect": !running && !paused, // connected: gives the arm the page's board (disks, pegs, start)
      "r-run": connected && !running && !paused && !latched,
      "r-play-move": connected && !running && !paused && !latched,
      "r-pause": running,
      "r-continue": paused,
      "r-stop": running || paused,
      "r-resume": connected && !running && !paused && !latched,
      "r-home": connected && !running && !latched,
      "r-clear": connected && !running,
      "r-disconnect": connected && !running,
    };
    for (const [id, on] of Object.entries(enable)) $(id).disabled = !(this.controls && on);
    for (const listen of this.listeners) listen(state, this.controls);
  }
}
