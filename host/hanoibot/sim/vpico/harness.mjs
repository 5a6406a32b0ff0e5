// The virtual Pico: the stock MicroPython UF2 on an emulated RP2040 (npm package rp2040js), driven by hanoibot's
// Python wrapper (hanoibot/sim/vpico/process.py) over stdin/stdout, one JSON object per line.
//
// argv: RP2040JS_ESM_INDEX BOOTROM_FILE FLASH_FILE OPTIONS_JSON
// In (stdin):  {"op":"serial","hex":".."}  bytes for the board's USB CDC input (the host keeps <= 512 in flight)
//              {"op":"adc","channel":0,"value":1234}  12-bit ADC input value (GP26..GP29 = channels 0..3)
//              {"op":"gpio","pin":22,"level":1}        an input level driven onto a GPIO pin
//              {"op":"reset"}                          press the board's reset (RUN pin): a hard reboot, flash kept
//              {"op":"grip","driven":true,"stalled":false}  the gripper servo's state; with options.grip_model its
//                                                      current is computed at each ADC0 conversion (grip_adc.mjs)
//              {"op":"tock","t_us":T}                  with options.lockstep: the host has taken the tick at T (an
//                                                      answer to an earlier tick, late after a wait ran out, is
//                                                      ignored: it must not release the wait for a later tick)
//              {"op":"run","until_ns":T,"stop_on_output":B}  with options.driven: run the chip until emulated time T
//                                                      (ns), or, with B, until it sends output, whichever comes first
//              {"op":"bus","powered":B,"regs":{"id":".."}}  with options.bus: the servos' registers and rail now
//              {"op":"stop"}
// Out (stdout): {"ev":"serial","hex":".."}  bytes the board sent on USB CDC
//               {"ev":"taken","n":N}        N input bytes left the USB FIFO into the firmware (or, with
//                                           "lost":true, were lost with the chip at a reboot)
//               {"ev":"tick","t_us":T,"pulses_us":[..],"latched_us":[..]}  every tick_us of emulated time: servo
//                                                      pulses (null = off) and when each took effect (its slice's
//                                                      latest wrap: CC is double-buffered; null = at T); with
//                                                      options.bus "bus_frames": [[t_ns, hex]..] the servos took
//               {"ev":"boot","n":K,"cause":"power"|"wdt"}  a (re)boot of the chip; "connected" when USB enumerated
//               {"ev":"stats", ...}         cycle counts, on request ({"op":"stats"})
//               {"ev":"tock_late","t_us":T} with options.lockstep: the host did not answer the tick at T within
//                                           TOCK_WAIT_MS; the chip ran on
//               {"ev":"ran","t_ns":T}       with options.driven: a run asked for ended at emulated time T (ns)
// Emulated time runs at most as fast as wall time (options.realtime), at most options.time_scale times wall time
// (a throttled chip: 0.25 = a quarter of a real RP2040's speed, as on a busy machine), or free (idle time skipped).
// With options.lockstep, the chip waits after each tick until the host answers {"op":"tock"} (at most TOCK_WAIT_MS of
// wall time): the world the host simulates (servo horns, disks, the grip current) never trails the chip's clock.
// A chip that falls behind the cap does not run faster than it later to catch up (lag beyond 20 ms is forgiven).
// With options.driven, the chip runs only when and as far as the host asks ({"op":"run"}): its emulated time is the
// host's clock, wall time plays no part, and with options.seed every random input (the ring oscillator's random bit,
// the grip sensor's noise) comes from seeded streams, so a run replays exactly on any machine at any load.
// With options.fast_boot, each (re)boot runs free until the board's first output or the host's first input since
// it: nothing outside the chip times a boot before then, and MicroPython compiling the firmware is ~1.4 s of chip time.

import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

import { FeetechBus, wireBus } from './feetech_bus.mjs';
import { GripAdc } from './grip_adc.mjs';
import { PCA9685 } from './pca9685.mjs';

const [esmIndex, bootromPath, flashPath, optionsJson] = process.argv.slice(2);
const { Simulator, USBCDC, ConsoleLogger, LogLevel } = await import(pathToFileURL(esmIndex).href);
const options = JSON.parse(optionsJson);

const CPU_HZ = 125e6;
const CYCLE_NS = 1e9 / CPU_HZ;
const FLASH_BASE = 0x10000000;
const SLICE_NS = 1e6; // run at most 1 ms of emulated time between looks at the host
const USB_FIFO_BYTES = 512;
const TICK_NS = (options.tick_us || 10000) * 1000;
const TIME_SCALE = options.time_scale || 1; // emulated ns per wall ns at most, when options.realtime
// With realtime, emulated time may trail the cap by this much (ns); lag beyond it is forgiven rather than caught up
// later, so a chip that fell behind (a busy machine) never runs faster than the cap to catch up.
const MAX_LAG_NS = 20e6;
// With options.lockstep, the longest the chip waits for the host's answer to a tick (ms of wall time).
const TOCK_WAIT_MS = 2000;

// --- boot ROM with flash erase/program routed to us (gap 1 of the README) ------------------------------------
const bootromBytes = readFileSync(bootromPath);
const bootrom = new Uint32Array(bootromBytes.buffer, bootromBytes.byteOffset, bootromBytes.length / 4).slice();
const BKPT_ERASE = 0x01;
const BKPT_PROGRAM = 0x02;

function romFunction(rom16, code) {
  // The function table pointer is the halfword at ROM 0x14; entries are (code, address) halfword pairs.
  let entry = rom16[0x14 >> 1] >> 1;
  for (; rom16[entry] !== 0; entry += 2) {
    if (rom16[entry] === code) {
      return rom16[entry + 1] & ~1;
    }
  }
  throw new Error(`boot ROM function ${code.toString(16)} not found`);
}

function patchRom(words) {
  const rom16 = new Uint16Array(words.buffer);
  const code = (a, b) => a.charCodeAt(0) | (b.charCodeAt(0) << 8);
  for (const [name, bkpt] of [
    ['RE', BKPT_ERASE],
    ['RP', BKPT_PROGRAM],
  ]) {
    const address = romFunction(rom16, code(name[0], name[1]));
    rom16[address >> 1] = 0xbe00 | bkpt; // BKPT #bkpt
    rom16[(address >> 1) + 1] = 0x4770; // BX LR
  }
}
patchRom(bootrom);

const flash = readFileSync(flashPath);

// --- random inputs: seeded streams with options.seed (mulberry32), else Math.random --------------------------
function seededStream(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function randomStream(salt) {
  return options.seed === undefined || options.seed === null ? Math.random : seededStream(options.seed * 7919 + salt);
}
const roscRandom = randomStream(1);

// --- output -------------------------------------------------------------------------------------------------
let outBuffer = [];
function emit(event) {
  outBuffer.push(JSON.stringify(event));
}
function flushOut() {
  if (outBuffer.length) {
    process.stdout.write(outBuffer.join('\n') + '\n');
    outBuffer = [];
  }
}

// --- the chip ------------------------------------------------------------------------------------------------
let pca = new PCA9685(); // replaced at a power cycle
// Feetech bus servos on a UART (feetech_bus.mjs): they have their own supply, so they outlive every reboot.
const bus = options.bus
  ? new FeetechBus({ ...options.bus, delayUs: options.bus.delay_us, random: randomStream(3) })
  : null;
const grip = options.grip_model ? new GripAdc(options.grip_model, randomStream(2)) : null;
const inputs = { adc: [0, 0, 0, 0], gpio: {} };
for (const [pin, level] of Object.entries(options.gpio_inputs || {})) {
  inputs.gpio[pin] = !!level;
}
let chip = null; // {sim, rp2040, cdc}
let bootCount = 0;
let timeOffsetNs = 0; // emulated time of earlier boots, so time never runs backward
let pendingInput = []; // bytes the host sent that are not yet in the USB FIFO
let heldRead = null; // a bulk-OUT read the firmware started while no input was there (gap 2)
let nextTickNs = 0;
let stopping = false;
const wallOriginMs = performance.now();
let cycles = 0;
let idleNs = 0;
let capNs = 0; // emulated time (ns) the cap allows so far: grows with wall time at TIME_SCALE while capped
let capWallMs = wallOriginMs; // wall time up to which capNs has grown
let booting = true; // since the latest boot, neither the board's output nor the host's input has come yet
let waitingTickUs = null; // with options.lockstep or driven: the tick whose answer the chip waits for
let tockTimer = null; // with options.lockstep: the bound on the wait for the host's answer to the latest tick
let grant = null; // with options.driven: the run the host asked for ({untilNs, stopOnOutput}), null while none
let outputSeen = false; // the board sent output since the latest run began

function nowNs() {
  return timeOffsetNs + chip.sim.clock.nanos;
}

function boot(cause, carried) {
  if (chip) {
    // Input still in the USB FIFO, or not yet in it, is lost with the chip: it is counted as taken, so the host's
    // count of bytes in flight stays exact whenever the host learns of the boot.
    const lost = pendingInput.length + chip.cdc.txFIFO.itemCount;
    if (lost) {
      emit({ ev: 'taken', n: lost, lost: true });
    }
  }
  const sim = new Simulator();
  const { rp2040 } = sim;
  rp2040.logger = new ConsoleLogger(LogLevel.Error, true);
  rp2040.loadBootrom(bootrom);
  rp2040.flash.set(carried ? carried.flash : flash);
  const watchdog = rp2040.peripherals[0x40058];
  if (carried) {
    watchdog.reason = carried.reason;
    watchdog.scratchData.set(carried.scratch);
  }
  // ROSC RANDOMBIT (offset 0x1c): rp2040js returns a constant; the real ring oscillator jitters (gap 3's boot id).
  const rosc = rp2040.peripherals[0x40060];
  const readRosc = rosc.readUint32.bind(rosc);
  rosc.readUint32 = (offset) => (offset === 0x1c ? (roscRandom() < 0.5 ? 1 : 0) : readRosc(offset));
  rp2040.onBreak = (code) => onBreak(rp2040, code);
  watchdog.onWatchdogTrigger = () => {
    watchdog.timer.enable = false;
    watchdog.alarm.enable = false;
    rebootPending = {
      cause: 'wdt', reason: watchdog.reason, scratch: watchdog.scratchData.slice(), flash: rp2040.flash,
    };
  };
  wireI2C(rp2040);
  if (bus) {
    wireBus(sim, rp2040, bus, options.bus.uart || 0, nowNs);
  }
  const cdc = new USBCDC(rp2040.usbCtrl);
  cdc.onDeviceConnected = () => {
    emit({ ev: 'connected', n: bootCount });
  };
  cdc.onSerialData = (buffer) => {
    booting = false;
    outputSeen = true;
    emit({ ev: 'serial', t_us: Math.round(nowNs() / 1000), hex: Buffer.from(buffer).toString('hex') });
  };
  const stockRead = rp2040.usbCtrl.onEndpointRead;
  rp2040.usbCtrl.onEndpointRead = (endpoint, size) => {
    if (endpoint === cdc.outEndpoint && cdc.txFIFO.itemCount === 0) {
      heldRead = { endpoint, size }; // a real host NAKs until it has data
      return;
    }
    if (endpoint === cdc.outEndpoint) {
      const n = Math.min(size, cdc.txFIFO.itemCount);
      if (n) {
        emit({ ev: 'taken', n });
      }
    }
    stockRead(endpoint, size);
  };
  for (const [pin, level] of Object.entries(inputs.gpio)) {
    rp2040.gpio[pin].setInputValue(level);
  }
  rp2040.adc.channelValues.splice(0, 4, ...inputs.adc);
  if (grip) {
    const stockAdcRead = rp2040.adc.onADCRead;
    rp2040.adc.onADCRead = (channel) => {
      if (channel === 0) {
        grip.m.frame_phase_s = gripperFrameStartS(); // the servo draws its burst after the pulse it is given
        rp2040.adc.channelValues[0] = grip.read(nowNs() / 1e9); // the burst's value at this conversion
      }
      stockAdcRead(channel);
    };
  }
  rp2040.core.PC = FLASH_BASE;
  chip = { sim, rp2040, cdc };
  heldRead = null;
  pendingInput = [];
  booting = true;
  bootCount += 1;
  emit({ ev: 'boot', n: bootCount, cause, t_us: Math.round(timeOffsetNs / 1000) });
}

let rebootPending = null;

function onBreak(rp2040, code) {
  const r = rp2040.core.registers;
  if (code === BKPT_ERASE) {
    const offset = r[0] >>> 0;
    const count = r[1] >>> 0;
    rp2040.flash.fill(0xff, offset, Math.min(offset + count, rp2040.flash.length));
  } else if (code === BKPT_PROGRAM) {
    const offset = r[0] >>> 0;
    const data = r[1] >>> 0;
    const count = r[2] >>> 0;
    for (let i = 0; i < count; i++) {
      rp2040.flash[offset + i] &= rp2040.readUint8(data + i);
    }
  } else {
    emit({ ev: 'break', code });
  }
}

function wireI2C(rp2040) {
  const bus = rp2040.i2c[options.i2c_bus || 0];
  let target = null;
  bus.onStart = () => {
    pca.start(nowNs());
    bus.completeStart();
  };
  bus.onConnect = (address) => {
    target = address === (options.pca9685_address ?? 0x40) ? pca : null;
    if (target) {
      target.start(nowNs());
    }
    bus.completeConnect(target !== null);
  };
  bus.onWriteByte = (value) => {
    if (target) {
      target.write(value, nowNs());
    }
    bus.completeWrite(target !== null);
  };
  bus.onReadByte = () => {
    bus.completeRead(target ? target.read() : 0xff);
  };
  bus.onStop = () => {
    if (target) {
      target.stop(nowNs());
    }
    target = null;
    bus.completeStop();
  };
}

// --- servo pulses read back from the emulated hardware -------------------------------------------------------
/** A PWM slice's clock divider: DIV is 8.4 fixed point, and an integer part of 0 divides by 256. */
function sliceDivisor(slice) {
  const divInt = (slice.div >> 4) & 0xff || 256;
  return divInt + (slice.div & 0xf) / 16;
}

function pwmPulseUs(rp2040, pin) {
  const gpio = rp2040.gpio[pin];
  if (gpio.functionSelect !== 4) {
    return null;
  }
  const slice = rp2040.pwm.channels[(pin >> 1) & 7];
  if (!(slice.csr & 1)) {
    return null;
  }
  const b = pin & 1;
  // CC is double-buffered (RP2040 datasheet 4.5.2.3): a write takes effect at the slice's next wrap, so a servo
  // sees the compare value latched at the start of its frame (rp2040js keeps it in the alarm targets).
  const level = b ? slice.alarmB.target : slice.alarmA.target;
  const divisor = sliceDivisor(slice);
  const phaseCorrect = slice.csr & 2 ? 2 : 1;
  const inverted = slice.csr & (b ? 8 : 4);
  const top = slice.timer.top; // TOP is double-buffered too
  const periodTicks = (top + 1) * phaseCorrect;
  let highTicks = Math.min(level, top + 1) * phaseCorrect;
  if (inverted) {
    highTicks = periodTicks - highTicks;
  }
  if (highTicks <= 0) {
    return null;
  }
  return (highTicks * divisor * 1e6) / rp2040.clkSys;
}

/** Emulated time (us) of the latest wrap of ``pin``'s PWM slice: when its servo took the pulse it now outputs. */
function pwmWrapUs(rp2040, pin) {
  const slice = rp2040.pwm.channels[(pin >> 1) & 7];
  const sinceWrapNs = (slice.timer.counter * sliceDivisor(slice) * 1e9) / rp2040.clkSys; // counts up from 0
  return Math.round((nowNs() - sinceWrapNs) / 1000);
}

function pulses() {
  const { rp2040 } = chip;
  if (options.servo_driver === 'pca9685') {
    return options.pca9685_channels.map((n) => round3(pca.pulseUs(n, nowNs())));
  }
  return options.pwm_pins.map((pin) => round3(pwmPulseUs(rp2040, pin)));
}

/** Per channel, when the pulse of :func:`pulses` took effect (us of emulated time; null: at this tick). */
function latchedUs() {
  if (options.servo_driver === 'pca9685') {
    pca.sync(nowNs());
    return options.pca9685_channels.map((n) => Math.round(pca.sinceNs[n] / 1000)); // the end of a cycle
  }
  return options.pwm_pins.map((pin) => pwmWrapUs(chip.rp2040, pin));
}

/** When the gripper's PWM frames start (s of emulated time, any frame's): its slice's latest wrap, or the
 * PCA9685's cycle; the gripper is the last servo channel. */
function gripperFrameStartS() {
  if (options.servo_driver === 'pca9685') {
    return pca.cycleOriginNs / 1e9;
  }
  const pins = options.pwm_pins;
  return pwmWrapUs(chip.rp2040, pins[pins.length - 1]) / 1e6;
}

function round3(value) {
  return value === null ? null : Math.round(value * 1000) / 1000;
}

// --- host input ----------------------------------------------------------------------------------------------
function deliverInput() {
  const { cdc, rp2040 } = chip;
  while (pendingInput.length && cdc.txFIFO.itemCount < USB_FIFO_BYTES) {
    cdc.sendSerialByte(pendingInput.shift());
  }
  if (heldRead && cdc.txFIFO.itemCount) {
    const { endpoint, size } = heldRead;
    heldRead = null;
    rp2040.usbCtrl.onEndpointRead(endpoint, size);
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (!line.trim()) {
    return;
  }
  const message = JSON.parse(line);
  if (message.op === 'serial') {
    booting = false;
    for (const byte of Buffer.from(message.hex, 'hex')) {
      pendingInput.push(byte);
    }
    deliverInput();
  } else if (message.op === 'adc') {
    inputs.adc[message.channel] = message.value;
    chip.rp2040.adc.channelValues[message.channel] = message.value;
  } else if (message.op === 'reset') {
    const watchdog = chip.rp2040.peripherals[0x40058];
    rebootPending = { reason: 0, scratch: watchdog.scratchData.slice(), flash: chip.rp2040.flash, cause: 'hard' };
  } else if (message.op === 'grip') {
    if (grip) {
      grip.set(!!message.driven, !!message.stalled, nowNs() / 1e9);
    }
  } else if (message.op === 'gpio') {
    inputs.gpio[message.pin] = !!message.level;
    chip.rp2040.gpio[message.pin].setInputValue(!!message.level);
  } else if (message.op === 'bus') {
    bus.powered = !!message.powered;
    for (const [id, hex] of Object.entries(message.regs)) {
      bus.setRegisters(Number(id), Buffer.from(hex, 'hex'));
    }
  } else if (message.op === 'stats') {
    emit({ ev: 'stats', t_us: nowNs() / 1000, cycles, idle_us: idleNs / 1000, wall_ms: performance.now() - wallOriginMs });
    flushOut();
  } else if (message.op === 'power') {
    // Off and on: the chip loses its watchdog scratch and the PCA9685 its registers (back to its power-on state).
    const watchdog = chip.rp2040.peripherals[0x40058];
    pca = new PCA9685();
    rebootPending = {
      cause: 'power', reason: 0, scratch: new Uint32Array(watchdog.scratchData.length), flash: chip.rp2040.flash,
    };
  } else if (message.op === 'run') {
    grant = { untilNs: message.until_ns, stopOnOutput: !!message.stop_on_output };
    outputSeen = false;
    schedule();
  } else if (message.op === 'tock') {
    if (message.t_us === waitingTickUs) {
      resumeAfterTock();
    }
  } else if (message.op === 'stop') {
    stopping = true;
    resumeAfterTock();
    schedule();
  }
});
lines.on('close', () => {
  stopping = true;
  resumeAfterTock();
  schedule();
});

function resumeAfterTock() {
  if (waitingTickUs !== null) {
    if (tockTimer !== null) {
      clearTimeout(tockTimer);
      tockTimer = null;
    }
    waitingTickUs = null;
    schedule();
  }
}

function tockLate() {
  emit({ ev: 'tock_late', t_us: waitingTickUs });
  flushOut();
  resumeAfterTock();
}

let scheduled = false; // a runSlice is due (never two at once)
function schedule(delayMs = 0) {
  if (!scheduled) {
    scheduled = true;
    if (delayMs > 0) {
      setTimeout(runSlice, delayMs);
    } else {
      setImmediate(runSlice);
    }
  }
}

/** With options.driven: true once the run asked for has gone as far as it may. */
function grantEnded() {
  return grant !== null && (nowNs() >= grant.untilNs || (grant.stopOnOutput && outputSeen));
}

// --- the run loop ------------------------------------------------------------------------------------------------
function runSlice() {
  scheduled = false;
  if (stopping) {
    flushOut();
    process.exit(0);
  }
  if (waitingTickUs !== null) {
    return; // the host has not taken the latest tick yet (lockstep): its answer schedules the next slice
  }
  if (options.driven && grant === null) {
    flushOut();
    return; // nothing asked: the chip stands still until the next run
  }
  const capped = !options.driven && options.realtime && !(booting && options.fast_boot);
  const wallMs = performance.now();
  capNs = capped ? Math.min(capNs + (wallMs - capWallMs) * 1e6 * TIME_SCALE, nowNs() + MAX_LAG_NS) : nowNs();
  capWallMs = wallMs;
  let limitNs = nowNs() + SLICE_NS;
  if (capped) {
    limitNs = Math.min(limitNs, capNs);
  }
  if (options.driven) {
    limitNs = Math.min(limitNs, grant.untilNs);
  }
  const { sim, rp2040 } = chip;
  const { clock } = sim;
  const { core } = rp2040;
  let ticked = false;
  while (nowNs() < limitNs && !rebootPending && !ticked && !grantEnded()) {
    // Local clock nanos of the next stop: the slice limit or the next tick, whichever comes first.
    const stopNs = Math.min(limitNs, nextTickNs) - timeOffsetNs;
    while (clock.nanosCounter < stopNs && !rebootPending && !grantEnded()) {
      if (core.waiting) {
        // Idle (WFI/WFE): skip to the next alarm, but not past the stop.
        const stepNs = Math.max(Math.min(clock.nanosToNextAlarm || SLICE_NS, stopNs - clock.nanosCounter), 1);
        clock.tick(stepNs);
        idleNs += stepNs;
      } else {
        const used = core.executeInstruction();
        cycles += used;
        clock.tick(used * CYCLE_NS);
      }
    }
    if (nowNs() >= nextTickNs) {
      const tickUs = Math.round(nextTickNs / 1000);
      const tick = { ev: 'tick', t_us: tickUs, pulses_us: pulses(), latched_us: latchedUs() };
      emit(bus ? { ...tick, bus_frames: bus.takeFrames() } : tick);
      nextTickNs += TICK_NS;
      if (options.lockstep || options.driven) {
        ticked = true;
        waitingTickUs = tickUs;
      }
    }
  }
  if (pendingInput.length) {
    deliverInput(); // the firmware made room in the FIFO: a USB host sends what it still has, unasked
  }
  if (rebootPending) {
    const carried = rebootPending;
    rebootPending = null;
    timeOffsetNs = nowNs();
    boot(carried.cause || 'wdt', carried);
  }
  if (options.driven && grantEnded()) {
    emit({ ev: 'ran', t_ns: Math.round(nowNs()) });
    grant = null;
  }
  flushOut();
  if (ticked && !stopping) {
    if (!options.driven) {
      tockTimer = setTimeout(tockLate, TOCK_WAIT_MS); // a tick went out in this slice: wait for its answer
    }
    return; // driven: the chip waits for the world's answer however long it takes (the host is the clock)
  }
  schedule(capped && nowNs() >= capNs ? 1 : 0);
}

boot('power', null);
nextTickNs = TICK_NS;
flushOut();
schedule();
