// The grip sensor on the virtual Pico's ADC0 (GP26), computed at each conversion from the emulated time: the
// gripper servo's current in 50 Hz bursts (long while stalled on a disk, short at rest, none while undriven)
// through the shunt, amplifier and RC filter, plus ADC noise. The same model and parameters as
// hanoibot/sim/sensors.py (the Python side sends them: sensors.grip_model() in vpico/sensors.py).

export class GripAdc {
  /** ``random`` draws uniform numbers in [0, 1) for the ADC noise (a seeded stream replays it exactly). */
  constructor(model, random = Math.random) {
    this.m = model;
    this.random = random;
    this.driven = false;
    this.stalled = false;
    this.filterV = 0;
    this.filterS = null;
  }

  /** The servo's drive and stall state from ``tS`` (s) on. */
  set(driven, stalled, tS) {
    this.advance(tS);
    this.driven = driven;
    this.stalled = stalled;
  }

  burst() {
    const m = this.m;
    return this.stalled ? [m.stall_peak_a, m.stall_burst_s] : [m.rest_peak_a, m.rest_burst_s];
  }

  inputV(tS) {
    if (!this.driven) {
      return 0;
    }
    const m = this.m;
    const [peakA, burstS] = this.burst();
    const phase = (((tS - m.frame_phase_s) % m.frame_s) + m.frame_s) % m.frame_s;
    const currentA = m.quiescent_a + (phase < burstS ? peakA : 0);
    return Math.min(Math.max(currentA * m.volts_per_amp, 0), m.amplifier_max_v);
  }

  advance(nowS) {
    const m = this.m;
    const tau = m.tau_s;
    let t = this.filterS;
    if (t === null || nowS - t > 12 * tau) {
      t = nowS - 12 * tau;
      this.filterV = this.inputV(t);
    }
    const burstS = this.burst()[1];
    while (t < nowS) {
      const phase = (((t - m.frame_phase_s) % m.frame_s) + m.frame_s) % m.frame_s;
      const edge = phase < burstS ? burstS : m.frame_s;
      const end = Math.min(nowS, t + Math.max(edge - phase, 1e-9));
      const input = this.inputV(t);
      this.filterV = input + (this.filterV - input) * Math.exp(-(end - t) / tau);
      t = end;
    }
    this.filterS = nowS;
  }

  /** One 12-bit conversion at ``tS`` (s), noise included. */
  read(tS) {
    const m = this.m;
    this.advance(tS);
    const full = (1 << m.adc_bits) - 1;
    const u = 1 - this.random();
    const noise = m.noise_counts * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.random());
    return Math.max(0, Math.min(full, Math.round((this.filterV / m.adc_full_scale_v) * full + noise)));
  }
}
