// SVG drawing of a peg board from the geometry the server's SVG renderer uses (mm; u along the pegs, z up),
// with optional arm, drag-and-drop (mouse, touch, pen) and keyboard play on the pegs.
import { LETTERS } from "./puzzle.js";

const NS = "http://www.w3.org/2000/svg";
const MARGIN_MM = 15;
const LABEL_SPACE_MM = 14;
const BOARD_EDGE_MM = 4;
// A dropped disk lands on the nearest peg when its centre is within this share of the peg spacing of the peg's
// axis, and no higher than DROP_ABOVE_TIP_DISKS disk thicknesses above the peg's tip; otherwise it goes back.
export const DROP_SHARE_OF_SPACING = 0.3;
const DROP_ABOVE_TIP_DISKS = 4;
// Smallest a disk is drawn, in CSS px: the smallest disk at least MIN_DISK_WIDTH_PX wide (WCAG's 24 px target
// size) and, on a board one plays on, every disk MIN_DISK_HEIGHT_PX high. A board that would be smaller keeps this size and scrolls sideways.
export const MIN_DISK_WIDTH_PX = 24;
export const MIN_DISK_HEIGHT_PX = 12;

// Fills of the coloured puzzles' disks (as the SVG renderer's COLOUR_FILLS).
export const COLOUR_FILLS = { red: "#d62828", green: "#2a9d4a", blue: "#1f5fbf" };

export function diskColour(disk, colour = null) {
  if (colour) return COLOUR_FILLS[colour] || colour;
  return `hsl(${(disk * 47) % 360},70%,55%)`;
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

export class BoardView {
  // svg: the <svg> element; geometry: peg_u_mm, peg_foot_z_mm, peg_height_mm, peg_diameter_mm,
  // disk_diameters_mm, disk_thickness_mm, base_mm, home_arm_mm (optional); options: { label, interactive,
  // onDrop(src, dst|null), onPegActivate(peg) }.
  constructor(svg, geometry, options = {}) {
    this.svg = svg;
    this.g = geometry;
    this.options = options;
    this.stacks = [];
    this.dragging = null;
    this.selectedPeg = null;
    this.suggestion = null;
    this.floating = null; // {disk, u, z}: a disk drawn off its peg (animation)
    this.layoutBounds();
    svg.innerHTML = "";
    svg.setAttribute("viewBox", `0 0 ${this.widthMm} ${this.heightMm}`);
    // A board one plays on keeps disks large enough to grab; a board one watches only the width.
    const minHeightPx = options.interactive ? MIN_DISK_HEIGHT_PX : 0;
    const pxPerMm = Math.max(MIN_DISK_WIDTH_PX / this.diskDiameter(1), minHeightPx / geometry.disk_thickness_mm);
    svg.style.minWidth = `${Math.ceil(this.widthMm * pxPerMm)}px`;
    svg.style.minHeight = `${Math.ceil(this.heightMm * pxPerMm)}px`;
    this.background = el("g", { class: "background" }, svg);
    this.pegLayer = el("g", { class: "pegs" }, svg);
    this.diskLayer = el("g", { class: "disks" }, svg);
    this.armLayer = el("g", { class: "arm-layer", "aria-hidden": "true" }, svg);
    this.drawBackground();
    this.panned = false;
    if (options.interactive) this.enableTouchPan();
  }

  get pegs() {
    return this.g.peg_u_mm.length;
  }

  diskDiameter(disk) {
    const known = this.g.disk_diameters_mm;
    if (disk <= known.length) return known[disk - 1];
    const step = known.length > 1 ? known[known.length - 1] - known[known.length - 2] : 10;
    return known[known.length - 1] + step * (disk - known.length);
  }

  spacing() {
    const u = this.g.peg_u_mm;
    return u.length > 1 ? (u[u.length - 1] - u[0]) / (u.length - 1) : 100;
  }

  layoutBounds() {
    const g = this.g;
    const widest = this.diskDiameter(Math.max(g.disk_diameters_mm.length, this.options.disks || 1));
    const us = [Math.min(...g.peg_u_mm) - widest / 2, Math.max(...g.peg_u_mm) + widest / 2];
    const zs = g.peg_foot_z_mm.map((z) => z + g.peg_height_mm + 2 * g.disk_thickness_mm);
    for (const [u, z] of [...(g.base_mm ? [g.base_mm] : []), ...(g.home_arm_mm || [])]) {
      us.push(u - 20, u + 20);
      zs.push(z + 10);
    }
    this.boardLeft = us[0];
    this.boardRight = us[1];
    this.left = Math.min(...us) - MARGIN_MM;
    this.right = Math.max(...us) + MARGIN_MM;
    this.top = Math.max(...zs) + MARGIN_MM;
    this.bottom = Math.min(0, ...g.peg_foot_z_mm) - LABEL_SPACE_MM;
    this.widthMm = +(this.right - this.left).toFixed(2);
    this.heightMm = +(this.top - this.bottom).toFixed(2);
  }

  x(u) {
    return +(u - this.left).toFixed(2);
  }

  y(z) {
    return +(this.top - z).toFixed(2);
  }

  drawBackground() {
    const g = this.g;
    const left = this.boardLeft - MARGIN_MM / 2;
    const right = this.boardRight + MARGIN_MM / 2;
    if (g.base_mm) {
      const [bu, bz] = g.base_mm;
      el("rect", { class: "arm-base", x: this.x(bu - 15), y: this.y(bz + 12), width: 30, height: 12 }, this.background);
    }
    el("rect", { class: "board", x: this.x(left), y: this.y(0), width: right - left, height: BOARD_EDGE_MM }, this.background);
    this.pegNodes = [];
    const spacing = this.spacing();
    g.peg_u_mm.forEach((u, peg) => {
      const foot = g.peg_foot_z_mm[peg] || 0;
      const hit = el(
        "g",
        { class: "peg-hit", "data-peg": LETTERS[peg], role: this.options.interactive ? "button" : "img" },
        this.pegLayer,
      );
      if (this.options.interactive) hit.setAttribute("tabindex", "0");
      el(
        "rect",
        {
          class: "peg-zone",
          x: this.x(u - spacing / 2 + 2),
          y: this.y(foot + g.peg_height_mm + 2 * g.disk_thickness_mm),
          width: spacing - 4,
          height: g.peg_height_mm + 2 * g.disk_thickness_mm + LABEL_SPACE_MM - 2,
          rx: 3,
        },
        hit,
      );
      el(
        "rect",
        {
          class: "peg",
          x: this.x(u - g.peg_diameter_mm / 2),
          y: this.y(foot + g.peg_height_mm),
          width: g.peg_diameter_mm,
          height: g.peg_height_mm,
          rx: g.peg_diameter_mm / 2,
        },
        hit,
      );
      const label = el("text", { class: "label", x: this.x(u), y: this.y(foot - LABEL_SPACE_MM + 3) }, hit);
      label.textContent = LETTERS[peg];
      if (this.options.interactive) {
        hit.addEventListener("keydown", (ev) => this.onPegKey(ev, peg));
        hit.addEventListener("click", () => {
          if (!this.panned && this.options.onPegActivate) this.options.onPegActivate(peg);
        });
      }
      this.pegNodes.push(hit);
    });
  }

  onPegKey(ev, peg) {
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      if (this.options.onPegActivate) this.options.onPegActivate(peg);
    } else if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
      ev.preventDefault();
      const next = (peg + (ev.key === "ArrowRight" ? 1 : this.pegs - 1)) % this.pegs;
      this.pegNodes[next].focus();
    } else if (/^[1-8]$/.test(ev.key) && Number(ev.key) <= this.pegs) {
      this.pegNodes[Number(ev.key) - 1].focus();
    }
  }

  // A finger on the board but off a top disk scrolls a board wider than its box sideways. The board itself takes
  // no browser panning (touch-action: none, which Chromium honours on the <svg> and not on its disks), so that a
  // finger on a disk drags the disk.
  enableTouchPan() {
    const box = this.svg.parentElement;
    let pan = null;
    // Handler properties, not listeners: a new BoardView on the same <svg> replaces the old one's.
    this.svg.onpointerdown = (ev) => {
      this.panned = false;
      if (ev.pointerType !== "touch" || ev.target.closest(".disk.top") || box.scrollWidth <= box.clientWidth) return;
      pan = { id: ev.pointerId, x: ev.clientX, left: box.scrollLeft };
    };
    this.svg.onpointermove = (ev) => {
      if (!pan || ev.pointerId !== pan.id) return;
      const dx = ev.clientX - pan.x;
      if (Math.abs(dx) > 4) this.panned = true; // a pan, not a tap: no peg is picked when the finger lifts
      box.scrollLeft = pan.left - dx;
    };
    this.svg.onpointerup = this.svg.onpointercancel = (ev) => {
      if (pan && ev.pointerId === pan.id) pan = null;
    };
  }

  // Centre (u, z) in mm of a disk at `level` (0 = bottom) on `peg`.
  diskCentre(peg, level) {
    const t = this.g.disk_thickness_mm;
    return { u: this.g.peg_u_mm[peg], z: (this.g.peg_foot_z_mm[peg] || 0) + level * t + t / 2 };
  }

  liftHeight() {
    return Math.max(...this.g.peg_foot_z_mm) + this.g.peg_height_mm + 1.5 * this.g.disk_thickness_mm;
  }

  diskRect(disk, u, z, attrs) {
    const d = this.diskDiameter(disk);
    const t = this.g.disk_thickness_mm;
    const colour = (this.g.disk_colours || [])[disk - 1] || null;
    return el("rect", {
      class: "disk",
      "data-disk": disk,
      ...(colour ? { "data-colour": colour } : {}),
      fill: diskColour(disk, colour),
      x: this.x(u - d / 2),
      y: this.y(z + t / 2),
      width: +d.toFixed(2),
      height: t,
      rx: Math.min(3, t / 2),
      ...attrs,
    });
  }

  // Draw `stacks` (bottom first); `arm` is a polyline in mm, `held` a disk at its last point.
  draw(stacks, { arm = null, held = null } = {}) {
    this.stacks = stacks;
    this.diskLayer.innerHTML = "";
    stacks.forEach((stack, peg) => {
      stack.forEach((disk, level) => {
        if (this.floating && this.floating.disk === disk) return;
        const { u, z } = this.diskCentre(peg, level);
        const isTop = level === stack.length - 1;
        const rect = this.diskRect(disk, u, z, {
          "data-peg": LETTERS[peg],
          "data-level": level,
          role: "img",
          "aria-label": `disk ${disk} on peg ${LETTERS[peg]}`,
        });
        if (isTop) rect.classList.add("top");
        if (this.suggestion && this.suggestion.disk === disk) rect.classList.add("suggested");
        if (this.selectedPeg === peg && isTop) rect.classList.add("selected");
        if (this.options.interactive && isTop) this.makeDraggable(rect, peg, disk, u, z);
        this.diskLayer.appendChild(rect);
      });
    });
    if (this.floating) {
      const { disk, u, z } = this.floating;
      const rect = this.diskRect(disk, u, z, { "data-peg": "moving", role: "img", "aria-label": `disk ${disk} moving` });
      this.diskLayer.appendChild(rect);
    }
    this.pegNodes.forEach((node, peg) => {
      const stack = stacks[peg] || [];
      const topText = stack.length ? `, top disk ${stack[stack.length - 1]}` : "";
      const count = `${stack.length} disk${stack.length === 1 ? "" : "s"}`;
      node.setAttribute("aria-label", `peg ${LETTERS[peg]}: ${count}${topText}`);
      node.classList.toggle("selected", this.selectedPeg === peg);
      node.classList.toggle("suggested-target", !!this.suggestion && this.suggestion.dst === peg);
    });
    this.armLayer.innerHTML = "";
    if (arm && arm.length) {
      const points = arm.map(([u, z]) => `${this.x(u)},${this.y(z)}`).join(" ");
      el("polyline", { class: "arm", points }, this.armLayer);
      for (const [u, z] of arm) el("circle", { class: "joint", cx: this.x(u), cy: this.y(z), r: 2.5 }, this.armLayer);
      if (held !== null) {
        const [gu, gz] = arm[arm.length - 1];
        this.armLayer.appendChild(this.diskRect(held, gu, gz, { "data-peg": "held" }));
      }
    }
  }

  toMm(clientX, clientY) {
    const pt = this.svg.createSVGPoint();
    pt.x = clientX;
    pt.y = clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    return { u: p.x + this.left, z: this.top - p.y };
  }

  // The peg a disk whose centre is at (u, z) mm drops on, or null (too far from every peg).
  dropPeg(u, z) {
    let best = null;
    let bestDistance = Infinity;
    this.g.peg_u_mm.forEach((pu, peg) => {
      const distance = Math.abs(u - pu);
      if (distance < bestDistance) {
        best = peg;
        bestDistance = distance;
      }
    });
    if (best === null || bestDistance > DROP_SHARE_OF_SPACING * this.spacing()) return null;
    const tip = (this.g.peg_foot_z_mm[best] || 0) + this.g.peg_height_mm;
    if (z > tip + DROP_ABOVE_TIP_DISKS * this.g.disk_thickness_mm || z < -this.g.disk_thickness_mm) return null;
    return best;
  }

  makeDraggable(rect, peg, disk, u, z) {
    rect.addEventListener("pointerdown", (ev) => {
      if (this.options.isBusy && this.options.isBusy()) return;
      ev.preventDefault();
      rect.setPointerCapture(ev.pointerId);
      const start = this.toMm(ev.clientX, ev.clientY);
      this.dragging = { peg, disk, start, u, z, rect };
      rect.classList.add("dragging");
    });
    rect.addEventListener("pointermove", (ev) => {
      if (!this.dragging || this.dragging.rect !== rect) return;
      const now = this.toMm(ev.clientX, ev.clientY);
      const du = now.u - this.dragging.start.u;
      const dz = now.z - this.dragging.start.z;
      rect.setAttribute("transform", `translate(${du.toFixed(2)},${(-dz).toFixed(2)})`);
    });
    const finish = (ev) => {
      if (!this.dragging || this.dragging.rect !== rect) return;
      const now = this.toMm(ev.clientX, ev.clientY);
      const centreU = u + now.u - this.dragging.start.u;
      const centreZ = z + now.z - this.dragging.start.z;
      this.dragging = null;
      rect.classList.remove("dragging");
      rect.removeAttribute("transform");
      if (this.options.onDrop) this.options.onDrop(peg, this.dropPeg(centreU, centreZ));
    };
    rect.addEventListener("pointerup", finish);
    rect.addEventListener("pointercancel", finish);
  }

  // Client (screen) position of the point (u, z) mm, for tests and tools.
  clientPoint(u, z) {
    const pt = this.svg.createSVGPoint();
    pt.x = this.x(u);
    pt.y = this.y(z);
    const p = pt.matrixTransform(this.svg.getScreenCTM());
    return { x: p.x, y: p.y };
  }
}
