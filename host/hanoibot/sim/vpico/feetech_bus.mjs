// Feetech STS bus servos on the virtual Pico's UART: the half-duplex data line, byte-exact with the Python model
// hanoibot/sim/bus.py (SimServoBus), which is the reference (tests/hil/test_vpico_bus_models_agree.py holds them to
// the same answers).
//
// The line: every byte the chip sends takes 10 bit times at the bus's baud rate and comes back to the chip's RX as
// an echo (TX through a resistor onto the line, RX on it: hardware/README.md); a byte waits while the line is busy.
// A frame ("FF FF id len instr params checksum", read as hanoifw/feetech.py's PacketReader reads it) reaches every
// servo when its last byte is on the line: a WRITE is acted on and answered, a READ or PING answered, a SYNC WRITE
// or broadcast WRITE acted on by each servo named and answered by none. An answer (status packet: the servo's id, an
// error byte of 0, the data, the checksum) starts after the servo's Return Delay Time (register 7, in 2 us units)
// or the bus's delayUs, on chip time, and follows the line's byte timing.
//
// The servos' registers come from the Python world at each tick (setRegisters: their positions, speeds and loads
// follow the goals there, by hanoibot's one servo model, stopped where the world says); between two ticks a write
// changes the registers the Python model keeps as the Python model does (Torque Enable, Goal Position, Goal Time,
// Goal Speed, Return Delay Time, Lock), so a READ right after a WRITE reads what was written. Every frame the servos
// took is handed to the world (takeFrames) with its chip time, so the world's servos act on it at that instant.
//
// Faults, as sim://?servo=sts has them: silent ids (they hear and act, they never answer), corrupt (the probability
// that an answer has one bit flipped, outside its FF FF header), delayUs (every servo's answer delay).
// Times are ns of emulated time throughout.

const HEADER = 0xff;
const BROADCAST_ID = 0xfe;
const PING = 0x01;
const READ = 0x02;
const WRITE = 0x03;
const SYNC_WRITE = 0x83;
const MAX_PACKET_BYTES = 96;
const REGISTER_BYTES = 87; // the memory table a READ answers from (0..86), zeros beyond
const BITS_PER_BYTE = 10;
// Registers a write changes in the Python model (hanoibot/sim/bus.py SimBusServo._write_byte)
const RETURN_DELAY_TIME = 7;
const TORQUE_ENABLE = 40;
const GOAL_POSITION = 42;
const GOAL_TIME = 44;
const GOAL_SPEED = 46;
const LOCK = 55;
const POSITION_SIGN_BIT = 15;
const SPEED_SIGN_BIT = 15;

function checksum(buf, start, end) {
  let total = 0;
  for (let i = start; i < end; i++) {
    total += buf[i];
  }
  return ~total & 0xff;
}

function fromSignMagnitude(raw, signBit) {
  const bit = 1 << signBit;
  return raw & bit ? -(raw & (bit - 1)) : raw & (bit - 1);
}

function toSignMagnitude(value, signBit) {
  return value < 0 ? -value | (1 << signBit) : value;
}

/** hanoifw/feetech.py's PacketReader: one byte at a time, resynchronising on FF FF; take() is true when a whole
 * frame with a good checksum is in buf[0..size). */
export class PacketReader {
  constructor() {
    this.buf = new Uint8Array(MAX_PACKET_BYTES);
    this.size = 0;
    this.fill = 0;
    this.need = 0;
  }
  reset() {
    this.fill = 0;
    this.size = 0;
  }
  take(byte) {
    const { buf } = this;
    let { fill } = this;
    this.size = 0;
    if (fill < 2) {
      if (byte === HEADER) {
        buf[fill] = byte;
        this.fill = fill + 1;
      } else {
        this.fill = 0;
      }
      return false;
    }
    if (fill === 2) {
      if (byte !== HEADER) {
        buf[2] = byte;
        this.fill = 3;
      }
      return false;
    }
    if (fill === 3) {
      if (byte < 2 || byte + 4 > buf.length) {
        this.fill = byte === HEADER ? 1 : 0;
        return false;
      }
      buf[3] = byte;
      this.need = byte + 4;
      this.fill = 4;
      return false;
    }
    buf[fill] = byte;
    fill += 1;
    if (fill < this.need) {
      this.fill = fill;
      return false;
    }
    this.fill = 0;
    if (checksum(buf, 2, fill - 1) !== byte) {
      return false;
    }
    this.size = fill;
    return true;
  }
}

export class FeetechBus {
  /** ``ids``: the servos on the line; ``baud`` its rate; ``echo`` whether the chip's TX comes back to its RX;
   * ``silent`` ids that never answer; ``corrupt`` the probability an answer has a flipped bit; ``delayUs`` (or
   * null) every servo's answer delay; ``random`` uniform draws in [0, 1) for the corruption. */
  constructor({ ids, baud = 1000000, echo = true, silent = [], corrupt = 0, delayUs = null, random = Math.random }) {
    this.ids = ids.slice();
    this.byteNs = (BITS_PER_BYTE * 1e9) / baud;
    this.echo = echo;
    this.silent = new Set(silent);
    this.corrupt = corrupt;
    this.delayUs = delayUs;
    this.random = random;
    this.powered = true; // the servo rail: without it nobody on the line hears anything
    this.regs = new Map(ids.map((id) => [id, this.factoryRegisters(id)]));
    this.reader = new PacketReader();
    this.lineFreeNs = 0;
    this.rx = []; // [atNs, byte] toward the chip, in time order
    this.taken = []; // [tNs, hex] frames the servos took since the last takeFrames()
    this.answers = 0;
    this.corrupted = 0;
  }

  factoryRegisters(id) {
    const regs = new Uint8Array(REGISTER_BYTES);
    regs[5] = id;
    regs[RETURN_DELAY_TIME] = 250;
    return regs;
  }

  /** The servo ``id``'s registers 0..86 as the world has them now (a Uint8Array or an array of bytes). */
  setRegisters(id, bytes) {
    const regs = this.regs.get(id);
    if (regs) {
      regs.set(bytes.slice(0, REGISTER_BYTES));
    }
  }

  /** The chip puts ``byte`` on the line at ``tNs``. */
  write(byte, tNs) {
    const atNs = Math.max(tNs, this.lineFreeNs) + this.byteNs;
    this.lineFreeNs = atNs;
    if (this.echo) {
      this.rx.push([atNs, byte]);
    }
    if (this.reader.take(byte)) {
      this.act(atNs);
    }
  }

  /** When the next byte reaches the chip (null: none is on its way). */
  nextNs() {
    return this.rx.length ? this.rx[0][0] : null;
  }

  /** The bytes that reached the chip by ``tNs``, taken off the line. */
  due(tNs) {
    const out = [];
    while (this.rx.length && this.rx[0][0] <= tNs) {
      out.push(this.rx.shift()[1]);
    }
    return out;
  }

  /** The frames the servos took since the last call: [tNs, hex] each. */
  takeFrames() {
    const frames = this.taken;
    this.taken = [];
    return frames;
  }

  act(tNs) {
    const { reader } = this;
    const frame = reader.buf.slice(0, reader.size);
    this.taken.push([tNs, Buffer.from(frame).toString('hex')]);
    if (!this.powered) {
      return;
    }
    const id = frame[2];
    const instruction = frame[4];
    const params = frame.subarray(5, frame.length - 1);
    if (instruction === SYNC_WRITE && id === BROADCAST_ID && params.length >= 2) {
      const [address, length] = params;
      const rows = params.subarray(2);
      for (let at = 0; at < rows.length - length; at += 1 + length) {
        this.writeRegisters(rows[at], address, rows.subarray(at + 1, at + 1 + length));
      }
      return;
    }
    if (instruction === WRITE && id === BROADCAST_ID && params.length >= 2) {
      for (const servoId of this.ids) {
        this.writeRegisters(servoId, params[0], params.subarray(1));
      }
      return;
    }
    const regs = this.regs.get(id);
    if (!regs) {
      return;
    }
    if (instruction === WRITE && params.length >= 2) {
      this.writeRegisters(id, params[0], params.subarray(1));
      if (!this.silent.has(id)) {
        this.answer(id, [], tNs);
      }
      return;
    }
    if (this.silent.has(id)) {
      return;
    }
    if (instruction === READ && params.length === 2) {
      const [address, length] = params;
      const data = new Array(length).fill(0);
      for (let i = 0; i < length && address + i < REGISTER_BYTES; i++) {
        data[i] = regs[address + i];
      }
      this.answer(id, data, tNs);
    } else if (instruction === PING) {
      this.answer(id, [], tNs);
    }
  }

  /** A write of ``data`` at ``address`` to servo ``id``: the registers the Python model keeps, as it keeps them. */
  writeRegisters(id, address, data) {
    const regs = this.regs.get(id);
    if (!regs) {
      return;
    }
    for (let offset = 0; offset < data.length; offset++) {
      const register = address + offset;
      const value = data[offset];
      const next = offset + 1 < data.length ? data[offset + 1] : null;
      if (register === TORQUE_ENABLE) {
        regs[TORQUE_ENABLE] = value ? 1 : 0;
      } else if (register === GOAL_POSITION && next !== null) {
        const goal = toSignMagnitude(fromSignMagnitude(value | (next << 8), POSITION_SIGN_BIT), POSITION_SIGN_BIT);
        regs[GOAL_POSITION] = goal & 0xff;
        regs[GOAL_POSITION + 1] = goal >> 8;
      } else if (register === GOAL_TIME && next !== null) {
        regs[GOAL_TIME] = value;
        regs[GOAL_TIME + 1] = next;
      } else if (register === GOAL_SPEED && next !== null) {
        const speed = Math.abs(fromSignMagnitude(value | (next << 8), SPEED_SIGN_BIT));
        regs[GOAL_SPEED] = speed & 0xff;
        regs[GOAL_SPEED + 1] = speed >> 8;
      } else if (register === RETURN_DELAY_TIME) {
        regs[RETURN_DELAY_TIME] = value;
      } else if (register === LOCK) {
        regs[LOCK] = value;
      }
    }
  }

  /** Queue servo ``id``'s status packet with ``data`` after its return delay. */
  answer(id, data, tNs) {
    const n = data.length + 6;
    const buf = new Uint8Array(n);
    buf[0] = HEADER;
    buf[1] = HEADER;
    buf[2] = id;
    buf[3] = data.length + 2;
    buf[4] = 0;
    buf.set(data, 5);
    buf[n - 1] = checksum(buf, 2, n - 1);
    if (this.corrupt && this.random() < this.corrupt) {
      const bit = Math.floor(this.random() * 8 * (n - 2));
      buf[2 + (bit >> 3)] ^= 1 << (bit & 7);
      this.corrupted += 1;
    }
    const delayNs = (this.delayUs !== null ? this.delayUs : 2 * this.regs.get(id)[RETURN_DELAY_TIME]) * 1000;
    const startNs = Math.max(tNs + delayNs, this.lineFreeNs);
    for (let k = 0; k < n; k++) {
      this.rx.push([startNs + (k + 1) * this.byteNs, buf[k]]);
    }
    this.lineFreeNs = startNs + n * this.byteNs;
    this.answers += 1;
  }
}

const UARTDR = 0x0;
const UARTTXINTR = 1 << 5;

/** rp2040js 1.4.1 asserts a UART's transmit interrupt at every register access, so once MicroPython enables it
 * (its UART IRQ handler clears it and returns) the chip never leaves the handler. A PL011 raises it when its
 * transmit FIFO falls to the trigger level (ARM PL011 TRM, UARTTXINTR): the model sends each byte at once, so the
 * FIFO empties at every write to UARTDR; an ICR write clears it until the next. */
function fixTxInterrupt(uart) {
  uart.checkInterrupts = function checkInterrupts() {
    this.rp2040.setInterrupt(this.irq, !!(this.interruptStatus & this.interruptMask));
  };
  const stockWrite = uart.writeUint32.bind(uart);
  uart.writeUint32 = (offset, value) => {
    stockWrite(offset, value);
    if (offset === UARTDR) {
      uart.interruptStatus |= UARTTXINTR;
      uart.checkInterrupts();
    }
  };
}

/** Put ``bus`` on UART ``uartId`` of a freshly booted chip ``rp2040`` (a Simulator's), whose emulated time is
 * ``nowNs()``: what the chip sends goes onto the line, and each byte on its way back is fed to the chip's RX at
 * the instant it arrives (a clock alarm of the chip, so idle time is never skipped past it). */
export function wireBus(sim, rp2040, bus, uartId, nowNs) {
  const uart = rp2040.uart[uartId];
  fixTxInterrupt(uart);
  const alarm = sim.clock.createAlarm(deliver);
  function arm() {
    const next = bus.nextNs();
    if (next !== null) {
      alarm.schedule(Math.max(next - nowNs(), 0));
    }
  }
  function deliver() {
    for (const byte of bus.due(nowNs())) {
      uart.feedByte(byte); // a full RX FIFO drops it (an overrun), as the chip's would
    }
    arm();
  }
  uart.onByte = (byte) => {
    bus.write(byte, nowNs());
    arm();
  };
  arm();
}
