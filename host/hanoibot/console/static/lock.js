// The Lock view: Pinaev's twin-tower lock ("Светофор") on the screen. Every press goes to the server
// (/api/lock), which presses it by the one set of rules in hanoibot.puzzle.lock (in the reading chosen under
// Rules, kept with the lock); this page only draws and counts.
const $ = (id) => document.getElementById(id);

export class LockPanel {
  constructor({ api }) {
    this.api = api;
    this.lock = null; // the server's last answer
    this.start = null; // the lock as it was dealt (colour letters)
    this.presses = 0;
    this.busy = false;
  }

  async begin() {
    $("lock-setup").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.deal();
    });
    $("lock-suggest").addEventListener("click", () => this.suggest());
    $("lock-restart").addEventListener("click", () => this.restart());
    await this.deal();
  }

  say(text, bad = false) {
    const node = $("lock-message");
    node.textContent = text;
    node.classList.toggle("bad", bad);
  }

  // A new lock: the typed colours, else a random one of the chosen length (from the seed, when one is typed).
  async deal() {
    const typed = $("lock-colours").value.trim();
    const seedText = $("lock-seed").value.trim();
    const body = typed ? { lock: typed, split: null } : { length: Number($("lock-length").value) };
    body.rules = $("lock-rules").value || null; // empty before the first answer lists the readings: the default
    if (!typed && seedText) body.seed = /^\d+$/.test(seedText) ? Number(seedText) : seedText;
    const answer = await this.ask(body);
    if (!answer) return;
    this.start = answer.lock;
    const seed = answer.seed === null ? "" : ` (seed ${answer.seed}: hanoibot lock --length ${answer.lock.length} --seed ${answer.seed})`;
    this.show(answer, { reset: true, text: `New lock ${answer.lock}${seed}.` });
  }

  // Start again: the lock as it was dealt, its memory cell empty, no presses.
  async restart() {
    if (!this.start) return;
    const answer = await this.ask({ lock: this.start, split: null, rules: this.lock.rules });
    if (answer) this.show(answer, { reset: true, text: `Back to the start: ${answer.lock}.` });
  }

  async ask(body) {
    try {
      return await this.api("/api/lock", body);
    } catch (err) {
      this.say(err.message, true);
      return null;
    }
  }

  // Draw the server's answer; `reset` starts the press count again, `text` is said unless the lock is open.
  show(answer, { reset = false, text = null } = {}) {
    this.lock = answer;
    if (reset) this.presses = 0;
    const rules = $("lock-rules");
    if (!rules.options.length) {
      for (const name of answer.readings) rules.add(new Option(name, name, false, name === answer.rules));
    }
    delete $("lock-message").dataset.hint;
    const row = $("lock-row");
    row.innerHTML = "";
    answer.colours.forEach((colour, i) => {
      const button = document.createElement("button");
      const number = i + 1;
      button.type = "button";
      button.className = `lock-element ${colour}`;
      button.dataset.button = String(number);
      button.dataset.colour = colour;
      const disk = answer.split === null ? null : Math.abs(number - answer.split) + 1;
      if (disk === 1) button.classList.add("split");
      // Named by its visible text plus words only a screen reader reads ("1: red, disk 2"), so the name a voice
      // user says (the number) is part of it.
      const said = `: ${colour}${disk === null ? "" : ", disk"}`;
      button.innerHTML = `<span class="number">${number}</span><span class="sr-only">${said}</span> ` +
        `<span class="disk">${disk === null ? "" : disk}</span>`;
      button.disabled = answer.open;
      button.addEventListener("click", () => this.press(number));
      row.appendChild(button);
    });
    $("lock-presses").textContent = String(this.presses);
    $("lock-fewest").textContent = answer.fewest_left === null ? "— (more than 8 elements)" : String(answer.fewest_left);
    const plan = answer.strategy;
    const first = plan && answer.split === null ? `first press ${plan.first}, ` : "";
    $("lock-strategy").textContent = plan ? `${plan.presses} presses (${first}all ${plan.colour})` : "–";
    $("lock-split").textContent = answer.split === null ? "not yet (the first press chooses it)" : `button ${answer.split}`;
    $("lock-suggest").disabled = answer.open || answer.hint === null;
    $("lock-state").textContent = answer.lock;
    if (answer.open) this.say(`Open after ${this.presses} presses.`);
    else if (text !== null) this.say(text);
  }

  async press(number) {
    if (this.busy || !this.lock || this.lock.open) return;
    this.busy = true;
    try {
      const answer = await this.ask({ lock: this.lock.lock, split: this.lock.split, press: number, rules: this.lock.rules });
      if (!answer) return;
      this.presses += 1;
      this.show(answer, { text: `${answer.said[0].toUpperCase()}${answer.said.slice(1)}.` });
    } finally {
      this.busy = false;
    }
  }

  suggest() {
    const hint = this.lock && this.lock.hint;
    if (!hint) return;
    for (const node of document.querySelectorAll("#lock-row .lock-element")) {
      node.classList.toggle("suggested", node.dataset.button === String(hint));
    }
    const how = this.lock.fewest_left === null ? "our strategy's next press" : `${this.lock.fewest_left} presses left at best`;
    this.say(`Suggested: press button ${hint} (${how}).`);
    $("lock-message").dataset.hint = String(hint);
  }
}
