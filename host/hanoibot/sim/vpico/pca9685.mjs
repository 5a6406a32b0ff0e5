// A PCA9685 16-channel PWM controller modelled at register level, as the NXP PCA9685 datasheet (rev. 4, section
// 7.3) describes it, for the virtual Pico's I2C bus: MODE1 SLEEP/RESTART/AI, PRE_SCALE (writable only while
// asleep, at least 3), LEDn_ON/OFF with the full-on/full-off bits, the ALL_LED registers, auto-increment with its
// roll-overs. pulseUs(n) reads back the pulse width of output n in microseconds (null = no pulses).
// The I2C side: start() at each START/address, write(byte) (the first byte after the address is the register
// pointer), read() (the register at the pointer).

const MODE1 = 0x00;
const PRE_SCALE = 0xfe;
const ALL_LED_ON_L = 0xfa;
const MODE1_RESTART = 0x80;
const MODE1_AI = 0x20;
const MODE1_SLEEP = 0x10;
const PCA_OSC_HZ = 25e6;

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
  }
  start() {
    this.first = true;
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
  write(value) {
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
      this.regs[MODE1] = next;
    } else if (reg === PRE_SCALE) {
      if (this.regs[MODE1] & MODE1_SLEEP) {
        this.regs[PRE_SCALE] = Math.max(value, 3); // writes below 3 are forced to 3
      }
    } else if (reg >= ALL_LED_ON_L && reg <= ALL_LED_ON_L + 3) {
      for (let n = 0; n < 16; n++) {
        this.regs[0x06 + 4 * n + (reg - ALL_LED_ON_L)] = value;
      }
      this.regs[reg] = value;
    } else if (reg < 0xfa || reg === 0xff) {
      this.regs[reg] = value;
    }
    this.advance();
  }
  read() {
    const value = this.regs[this.pointer];
    this.advance();
    return value;
  }
  anyRunning() {
    for (let n = 0; n < 16; n++) {
      if (this.pulseUs(n, true) !== null) {
        return true;
      }
    }
    return false;
  }
  /** Pulse width of output n in us (null = no pulses), from LEDn_ON/OFF and PRE_SCALE. */
  pulseUs(n, ignoreSleep = false) {
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
