"""A fake Feetech bus for the firmware tests: a UART whose far end is a few servos (CPython and MicroPython alike).

The servos parse the frames the driver writes with their own few lines (not with hanoifw.feetech, the code under
test) and answer READs as the manual's status packets: ``FF FF id len error params checksum``, low byte first.
The line gives back what was written (``echo``) before any answer, as TX through a resistor onto the data line does.
"""

HEADER = 0xFF


def checksum(data):
    total = 0
    for byte in data:
        total += byte
    return ~total & 0xFF


def le16(value):
    return [value & 0xFF, (value >> 8) & 0xFF]


def sign_magnitude(value, bit):
    return (-value) | (1 << bit) if value < 0 else value


class FakeBusServo:
    """One servo: its registers as numbers; it goes to its goal at once unless ``stuck_at`` holds it."""

    def __init__(self, servo_id, position=2048):
        self.servo_id = servo_id
        self.position = position
        self.goal = position
        self.goal_speed = 0
        self.goal_time = 0
        self.torque = 0
        self.load = 0
        self.speed = 0  # Present_Speed, steps/s (signed)
        self.current = 0
        self.status = 0
        self.stuck_at = None  # a position it cannot leave (a blocked joint)
        self.silent = False  # answers nothing
        self.corrupt_next = 0  # answers with a bad checksum this many times
        self.return_delay = 250  # register 7, in 2 us units (the factory's 500 us)

    def feedback(self):
        """Registers 56..70: position, speed, load, voltage, temperature, 64, status, moving, 67, 68, current."""
        position = self.position if self.stuck_at is None else self.stuck_at
        moving = 1 if position != self.goal and self.torque else 0
        data = le16(sign_magnitude(position, 15))
        data.extend(le16(sign_magnitude(self.speed, 15)))
        data.extend(le16(sign_magnitude(self.load, 10)))
        data.extend([74, 30, 0, self.status, moving, 0, 0])
        data.extend(le16(sign_magnitude(self.current, 15)))
        return data


class FakeBus:
    """A ``machine.UART`` on the servo bus: ``write`` frames, ``any`` / ``readinto(buf, n)`` what came back."""

    def __init__(self, ids=(1, 2, 3, 4, 5), echo=True, turnaround=0):
        self.turnaround = turnaround  # answers of servos whose return delay is shorter are lost (2 us units)
        self.servos = {}
        for servo_id in ids:
            self.servos[servo_id] = FakeBusServo(servo_id)
        self.echo = echo
        self.rx = bytearray()
        self.written = []  # every frame written, as bytes
        self.flushes = 0
        self.events = []  # ("write", n) and ("flush",) in order (the direction pin's test reads it)

    def write(self, data):
        frame = bytes(data)
        self.written.append(frame)
        self.events.append(("write", len(frame)))
        if self.echo:
            self.rx.extend(frame)
        answer = self._act(frame)
        if answer is not None:
            self.rx.extend(answer)
        return len(frame)

    def any(self):
        return len(self.rx)

    def readinto(self, buf, nbytes=None):
        n = min(len(self.rx), len(buf) if nbytes is None else nbytes)
        if n == 0:
            return None
        buf[:n] = self.rx[:n]
        self.rx = self.rx[n:]
        return n

    def flush(self):
        self.flushes += 1
        self.events.append(("flush",))

    def frames_of(self, instruction):
        """The frames written with this instruction byte."""
        return [frame for frame in self.written if len(frame) > 4 and frame[4] == instruction]

    def _act(self, frame):
        """Act on one instruction frame; the status packet to answer, or None."""
        if len(frame) < 6 or frame[0] != HEADER or frame[1] != HEADER or frame[3] != len(frame) - 4:
            return None
        if checksum(frame[2:-1]) != frame[-1]:
            return None
        servo_id, instruction, params = frame[2], frame[4], frame[5:-1]
        if instruction == 0x83:  # SYNC WRITE: address, length, then id + data rows
            address, length = params[0], params[1]
            rows = params[2:]
            for at in range(0, len(rows), 1 + length):
                servo = self.servos.get(rows[at])
                if servo is not None:
                    self._store(servo, address, rows[at + 1 : at + 1 + length])
            return None
        servo = self.servos.get(servo_id)
        if servo is None or servo.silent:
            return None
        if instruction == 0x02:  # READ: address, length
            address, length = params[0], params[1]
            registers = [0] * 56 + servo.feedback()
            registers[7] = servo.return_delay
            data = registers[address : address + length] if address + length <= len(registers) else [0] * length
            if address == 40:
                data = [servo.torque, 0]
                data.extend(le16(servo.goal))
                data = data[:length]
            return self._answer(servo, data)
        if instruction == 0x01:
            return self._answer(servo, [])
        if instruction == 0x03 and len(params) >= 2:  # WRITE: address, data; answered
            if params[0] == 7:
                servo.return_delay = params[1]
            else:
                self._store(servo, params[0], params[1:])
            return self._answer(servo, [])
        return None

    def _store(self, servo, address, data):
        if address == 40 and len(data) == 1:
            servo.torque = data[0]
            if servo.torque:
                servo.position = servo.goal
        elif address == 42 and len(data) >= 2:
            goal = data[0] | (data[1] << 8)
            servo.goal = -(goal & 0x7FFF) if goal & 0x8000 else goal
            if len(data) >= 6:
                servo.goal_time = data[2] | (data[3] << 8)
                servo.goal_speed = data[4] | (data[5] << 8)
            if servo.torque:
                servo.position = servo.goal

    def _answer(self, servo, data):
        if servo.return_delay < self.turnaround:
            return None  # it began while the board still drove the line: lost
        body = [servo.servo_id, len(data) + 2, 0]
        body.extend(data)
        packet = bytearray([HEADER, HEADER])
        packet.extend(body)
        packet.append(checksum(body))
        if servo.corrupt_next:
            servo.corrupt_next -= 1
            packet[5] ^= 0x01  # one flipped bit: the checksum no longer fits
        return bytes(packet)


class FakeDirectionPin:
    """A ``machine.Pin`` used as the bus buffer's direction: records its levels in the bus's event list."""

    def __init__(self, bus):
        self.bus = bus
        self.level = 0

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level
        self.bus.events.append(("dir", level))
