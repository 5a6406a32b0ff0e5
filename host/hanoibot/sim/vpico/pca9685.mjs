// A PCA9685 16-channel PWM controller modelled at register level, as the NXP PCA9685 datasheet (rev. 4, section
// 7.3) describes it, for the virtual Pico's I2C bus: MODE1 SLEEP/RESTART/AI, PRE_SCALE (writable only while
// asleep, at least 3), LEDn_ON/OFF with the full-on/full-off bits, the ALL_LED registers, auto-increment with its
// roll-overs. pulseUs(n, tNs) reads back the pulse width of output n in microseconds (null = no pulses): whole
// counts of its 4096-count cycle, so a pulse comes in steps of one count (4.88 us at 50 Hz).
// The chip's own output cycle: its counter runs from when the oscillator last woke (SLEEP cleared, plus the 500 us
// the datasheet gives it to settle), one cycle every 4096 * (PRE_SCALE + 1) / 25 MHz, in no phase with the MCU's
// clock. LEDn_ON/OFF are double-buffered (datasheet 7.3.1, OCH = 0): what a transaction wrote takes effect at the
// end of the cycle in which its STOP came, for every output at once, never in the middle of a pulse.
// The I2C side: start(tNs) at each START/address, write(byte, tNs) (the first byte after the address is the
// register pointer), read() (the register at the pointer), stop(tNs); times in ns of emulated time.

const MODE1 = 0x00;
const PRE_SCALE = 0xfe;
const ALL_LED_ON_L = 0xfa;
const MODE1_RESTART = 0x80;
const MODE1_AI = 0x20;
const MODE1_SLEEP = 0x10;
const PCA_OSC_HZ = 25e6;
const WAKE_NS = 500e3; // the oscillator settles this long after SLEEP is cleared (datasheet 7.3.1.1)
const LED_FIRST = 0x06;
const LED_LAST = 0x45;

function isLedRegister(reg) {
  return (reg >= LED_FIRST && reg <= LED_LAST) || (reg >= ALL_LED_ON_L && reg <= ALL_LED_ON_L + 3);
}

export class PCA9685 {
  constructor() {
    this.regs = new Uint8Array(256);
    this.regs[MODE1] = 0x11; // power-on: SLEEP | ALLCALL
    this.regs[0x01] = 0x04; // MODE2: OUTDRV
    this.regs[PRE_SCALE] = 0x1e; // 200 Hz
    for (let n = 0; n < 16; n++) {
      this.regs[0x09 + 4 * n] = 0x10; // LEDn_OFF_H: full off
    }
    this.pointer = 0;
    this.first = true;
    this.staged = this.regs.slice(); // LED registers as written, not yet taken by the outputs
    this.committed = null; // LED registers as of the latest STOP, waiting for the end of the cycle
    this.takeAtNs = 0; // when the committed registers take effect
    this.cycleOriginNs = 0; // the counter's start (the oscillator's latest wake)
    this.sinceNs = new Array(16).fill(0); // per output: when it last took new registers (the end of a cycle)
  }
  /** The output cycle in ns (4096 counts at the prescaled oscillator). */
  cycleNs() {
    return (4096 * (this.regs[PRE_SCALE] + 1) * 1e9) / PCA_OSC_HZ;
  }
  /** The end of the cycle running at tNs. */
  cycleEndNs(tNs) {
    const cycle = this.cycleNs();
    const k = Math.floor((tNs - this.cycleOriginNs) / cycle) + 1;
    return this.cycleOriginNs + Math.max(k, 1) * cycle;
  }
  /** Let the outputs take committed registers whose cycle has ended by tNs. */
  sync(tNs) {
    if (this.committed !== null && tNs >= this.takeAtNs) {
      for (let reg = 0; reg < 256; reg++) {
        if (isLedRegister(reg) && this.regs[reg] !== this.committed[reg]) {
          if (reg <= LED_LAST) {
            this.sinceNs[(reg - LED_FIRST) >> 2] = this.takeAtNs;
          }
          this.regs[reg] = this.committed[reg];
        }
      }
      this.committed = null;
    }
  }
  start(tNs) {
    this.sync(tNs);
    this.first = true;
  }
  stop(tNs) {
    this.sync(tNs);
    if (this.regs[MODE1] & MODE1_SLEEP) {
      this.committed = null; // no cycle runs while asleep: what was written takes effect at once
      for (let reg = 0; reg < 256; reg++) {
        if (isLedRegister(reg)) {
          this.regs[reg] = this.staged[reg];
        }
      }
      return;
    }
    if (this.committed === null) {
      this.takeAtNs = this.cycleEndNs(tNs);
    }
    this.committed = this.staged.slice();
  }
  advance() {
    if (!(this.regs[MODE1] & MODE1_AI)) {
      return;
    }
    // Auto-increment runs 0..69 then rolls to 0; from the ALL_LED registers 250..253 it rolls to 0 too.
    if (this.pointer === 0x45 || this.pointer === 0xfd) {
      this.pointer = 0;
    } else {
      this.pointer = (this.pointer + 1) & 0xff;
    }
  }
  write(value, tNs) {
    this.sync(tNs);
    if (this.first) {
      this.pointer = value;
      this.first = false;
      return;
    }
    const reg = this.pointer;
    if (reg === MODE1) {
      const old = this.regs[MODE1];
      let next = value & ~MODE1_RESTART;
      // RESTART reads 1 while sleeping after PWM ran; writing 1 to it clears it.
      if (old & MODE1_RESTART && !(value & MODE1_RESTART) && next & MODE1_SLEEP) {
        next |= MODE1_RESTART;
      }
      if (!(old & MODE1_SLEEP) && next & MODE1_SLEEP && this.anyRunning()) {
        next |= MODE1_RESTART;
      }
      if (old & MODE1_SLEEP && !(next & MODE1_SLEEP)) {
        this.cycleOriginNs = tNs + WAKE_NS; // the oscillator wakes: its counter starts afresh
      }
      this.regs[MODE1] = next;
    } else if (reg === PRE_SCALE) {
      if (this.regs[MODE1] & MODE1_SLEEP) {
        this.regs[PRE_SCALE] = Math.max(value, 3); // writes below 3 are forced to 3
      }
    } else if (reg >= ALL_LED_ON_L && reg <= ALL_LED_ON_L + 3) {
      for (let n = 0; n < 16; n++) {
        this.staged[0x06 + 4 * n + (reg - ALL_LED_ON_L)] = value;
      }
      this.staged[reg] = value;
    } else if (isLedRegister(reg)) {
      this.staged[reg] = value;
    } else if (reg < 0xfa || reg === 0xff) {
      this.regs[reg] = value;
    }
    this.advance();
  }
  read() {
    const value = isLedRegister(this.pointer) ? this.staged[this.pointer] : this.regs[this.pointer];
    this.advance();
    return value;
  }
  anyRunning() {
    for (let n = 0; n < 16; n++) {
      if (this.pulseUs(n, null, true) !== null) {
        return true;
      }
    }
    return false;
  }
  /** Pulse width of output n in us at tNs (null = no pulses), from LEDn_ON/OFF and PRE_SCALE. */
  pulseUs(n, tNs = null, ignoreSleep = false) {
    if (tNs !== null) {
      this.sync(tNs);
    }
    if (!ignoreSleep && this.regs[MODE1] & MODE1_SLEEP) {
      return null;
    }
    const base = 0x06 + 4 * n;
    const on = this.regs[base] | ((this.regs[base + 1] & 0x0f) << 8);
    const off = this.regs[base + 2] | ((this.regs[base + 3] & 0x0f) << 8);
    const fullOn = this.regs[base + 1] & 0x10;
    const fullOff = this.regs[base + 3] & 0x10;
    const countUs = ((this.regs[PRE_SCALE] + 1) * 1e6) / PCA_OSC_HZ;
    if (fullOff) {
      return null;
    }
    if (fullOn) {
      return 4096 * countUs;
    }
    const counts = (off - on + 4096) % 4096;
    return counts === 0 ? null : counts * countUs;
  }
}
