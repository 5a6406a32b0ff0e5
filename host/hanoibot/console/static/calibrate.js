// The calibration panel: go to each peg, jog the grip point by buttons or keys, save each peg as it is confirmed.
// Every action is one `calibrate` command to the console's robot worker; the worker says what happened in the
// robot state (state.calibration, state.message), which this panel shows.

const $ = (id) => document.getElementById(id);

// The jog buttons and the keys that press them: [axis, direction, key names shown, keys].
const JOGS = [
  ["x", -1, "Left arrow", ["ArrowLeft"]],
  ["x", 1, "Right arrow", ["ArrowRight"]],
  ["y", 1, "Up arrow", ["ArrowUp"]],
  ["y", -1, "Down arrow", ["ArrowDown"]],
  ["z", 1, "+", ["+", "="]],
  ["z", -1, "-", ["-", "_"]],
];
const FIELD = /^(INPUT|SELECT|TEXTAREA)$/;

const mm = (value) => `${Number(value.toFixed(2))} mm`;

export class CalibrationPanel {
  constructor(robot) {
    this.robot = robot;
    this.state = null;
    this.controls = false;
    this.pegKey = "";
    robot.listeners.push((state, controls) => this.onState(state, controls));
    $("c-begin").addEventListener("click", () => this.act("begin"));
    $("c-restart").addEventListener("click", () => this.act("begin", { restart: 1 }));
    $("c-end").addEventListener("click", () => this.act("end"));
    $("c-confirm").addEventListener("click", () => this.act("confirm"));
    $("c-step").addEventListener("change", () => this.act("step", { step_mm: Number($("c-step").value) }));
    for (const button of document.querySelectorAll("#c-pad [data-axis]")) {
      button.addEventListener("click", () =>
        this.act("jog", { axis: button.dataset.axis, direction: Number(button.dataset.direction) }),
      );
    }
    document.addEventListener("keydown", (ev) => this.onKey(ev));
    this.labelJogs(2);
  }

  get isOpen() {
    return !!(this.state && this.state.calibration);
  }

  act(action, options = {}) {
    this.robot.send("calibrate", { action, ...options });
  }

  // Keys act while a calibration is open and the focus is in this panel or nowhere (the Play board's arrow keys
  // and the form fields keep theirs).
  onKey(ev) {
    if (!this.isOpen || !this.controls || ev.ctrlKey || ev.altKey || ev.metaKey) return;
    const target = ev.target;
    const here = target === document.body || $("calibrate").contains(target);
    if (!here || FIELD.test(target.tagName)) return;
    const calibration = this.state.calibration;
    const jog = JOGS.find(([, , , keys]) => keys.includes(ev.key));
    if (jog) this.act("jog", { axis: jog[0], direction: jog[1] });
    else if (ev.key === "]") this.act("step", { step_mm: calibration.step_mm * 2 });
    else if (ev.key === "[") this.act("step", { step_mm: calibration.step_mm / 2 });
    else if (ev.key === "s" || ev.key === "S") this.act("confirm");
    else return;
    ev.preventDefault();
  }

  // Each jog button's name says what it does, by how much and its key (the step is in the name, not only shown).
  labelJogs(stepMm) {
    for (const button of document.querySelectorAll("#c-pad [data-axis]")) {
      const { axis, direction } = button.dataset;
      const jog = JOGS.find(([a, d]) => a === axis && String(d) === direction);
      const which = axis === "z" ? (direction === "1" ? "up" : "down") : `${direction === "1" ? "+" : "−"}${axis}`;
      const name = `${button.textContent.trim()}: move the grip point ${which} by ${mm(stepMm)} (key ${jog[2]})`;
      button.setAttribute("aria-label", name);
    }
  }

  // One button per peg, made when the calibration says how many pegs the board has.
  pegButtons(letters) {
    const key = letters.join("");
    if (key === this.pegKey) return;
    this.pegKey = key;
    const box = $("c-pegs");
    box.innerHTML = "";
    letters.forEach((letter, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.id = `c-peg-${letter}`;
      button.textContent = `Go to peg ${letter}`;
      button.addEventListener("click", () => this.act("peg", { peg: index }));
      box.appendChild(button);
    });
  }

  onState(state, controls) {
    this.state = state;
    this.controls = controls;
    const calibration = state ? state.calibration : null;
    const connected = !!(state && state.connected);
    const idle = connected && !(state.busy === "running" || state.phase === "paused") && !state.latched;
    document.body.dataset.calibrating = calibration ? "true" : "false";
    $("c-begin").disabled = !(controls && idle && !calibration);
    $("c-restart").disabled = !(controls && idle && !calibration);
    $("c-end").disabled = !(controls && calibration);
    const atPeg = !!(calibration && calibration.peg !== null);
    for (const button of document.querySelectorAll("#c-pad button, #c-step")) {
      button.disabled = !(controls && calibration && (atPeg || button.id === "c-step"));
    }
    $("c-confirm").disabled = !(controls && atPeg);
    if (!calibration) {
      $("c-pegs").innerHTML = "";
      this.pegKey = "";
      $("c-point").textContent = "–";
      $("c-peg-now").textContent = "–";
      $("c-saved").textContent = "–";
      if (state && state.error && document.activeElement && $("calibrate").contains(document.activeElement)) {
        this.say(state.error, true);
      }
      return;
    }
    this.pegButtons(calibration.pegs);
    for (const button of document.querySelectorAll("#c-pegs button")) button.disabled = !controls;
    const here = atPeg ? calibration.pegs[calibration.peg] : "";
    $("c-peg-now").textContent = atPeg ? `peg ${here}` : `none yet: go to peg ${calibration.pegs[calibration.next_peg] || "A"}`;
    $("c-confirm").textContent = atPeg ? `Save peg ${here}` : "Save this peg";
    const [x, y, z] = calibration.point_mm;
    $("c-point").textContent = `x ${x.toFixed(1)} mm, y ${y.toFixed(1)} mm, z ${z.toFixed(1)} mm`;
    $("c-step-text").textContent = mm(calibration.step_mm);
    const select = $("c-step");
    const value = String(calibration.step_mm);
    if (![...select.options].some((option) => option.value === value)) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = mm(calibration.step_mm);
      select.appendChild(option);
    }
    select.value = value;
    this.labelJogs(calibration.step_mm);
    const saved = Object.entries(calibration.saved);
    $("c-saved").textContent = saved.length
      ? saved.map(([letter, [sx, sy]]) => `${letter}: x ${sx.toFixed(1)}, y ${sy.toFixed(1)} mm`).join("; ")
      : "none yet";
    document.body.dataset.calibrationSaved = saved.map(([letter]) => letter).join("");
    if (state.error) this.say(state.error, true);
    else this.say(state.message);
  }

  say(text, bad = false) {
    const node = $("c-message");
    node.textContent = text;
    node.classList.toggle("bad", bad);
  }
}
